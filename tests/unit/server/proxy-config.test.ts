// Search proxy settings: YAML file + SEARCH_* environment overrides, defaults, validation errors
// that say what to do, keys refused in files, and the key taken from the named variable only.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSearchConfig, providerKey, resolveSearchConfig } from '../../../src/server/search/config';

describe('search settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'search-config-'));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('reads YAML, applies environment overrides and fills defaults', () => {
    const p = file('a.yaml', 'provider: serper\ntimeout_ms: 2000\nallowed_origins: [http://localhost:5173]\n');
    const c = loadSearchConfig(p, { SEARCH_MAX_RETRIES: '5', SEARCH_PROVIDER: 'tavily' });
    expect(c).toMatchObject({ provider: 'tavily', timeout_ms: 2000, max_retries: 5, api_key_env: 'TAVILY_API_KEY', rate_limit_per_min: 60 });
    expect(loadSearchConfig(file('b.json', '{"provider": "searxng", "endpoint": "http://127.0.0.1:8888"}'), {}).endpoint).toBe('http://127.0.0.1:8888');
  });

  it('refuses keys in files, unknown settings and bad values with a hint', () => {
    expect(() => resolveSearchConfig({ api_key: 'x' })).toThrow('keys come only from the environment');
    expect(() => resolveSearchConfig({ provider: 'google' })).toThrow('provider must be one of tavily, serper, bing, searxng, custom');
    expect(() => resolveSearchConfig({ timout_ms: 1 })).toThrow('unknown setting "timout_ms"');
    expect(() => resolveSearchConfig({ endpoint: 'ftp://x' })).toThrow('endpoint must be an http(s) URL');
    expect(() => resolveSearchConfig({ provider: 'custom', endpoint: 'http://x' })).toThrow('needs a "custom" mapping');
  });

  it('takes the key from the named environment variable only', () => {
    const c = resolveSearchConfig({ provider: 'bing', api_key_env: 'MY_BING' });
    expect(providerKey(c, { MY_BING: 'k' })).toBe('k');
    expect(() => providerKey(c, {})).toThrow('set the environment variable MY_BING');
    expect(providerKey(resolveSearchConfig({ provider: 'searxng' }), {})).toBeUndefined();
  });
});
