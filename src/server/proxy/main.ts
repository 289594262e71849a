// `npm run proxy`: the search proxy as a standalone Node server (the studio can also use the
// copy mounted into the Vite server under /api/). Options: --config F (YAML/JSON, default
// configs/search.yaml or $SEARCH_CONFIG when present), --port N (8787), --host H (127.0.0.1).
// Keys come only from the environment variables the settings name.
import { loadSearchConfig } from '../search/config';
import { getNumber, getString, parseArgs } from '../../util/args';
import { defaultConfigPath, startProxyServer } from './server';

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const path = getString(args, 'config') ?? defaultConfigPath();
  const config = loadSearchConfig(path);
  const { url } = await startProxyServer(config, getNumber(args, 'port', 8787), getString(args, 'host', '127.0.0.1'));
  const origins = config.allowed_origins.length ? config.allowed_origins.join(', ') : 'none (set allowed_origins to the studio page\'s origin)';
  const hosts = ['localhost', '127.0.0.1', '[::1]', ...config.allowed_hosts].join(', ');
  console.log(`search proxy on ${url}/api (provider ${config.provider}${path ? `, settings ${path}` : ', default settings'}; allowed origins: ${origins}; hosts: ${hosts})`);
}

main().catch((e: Error) => {
  console.error(`proxy: ${e.message}`);
  process.exit(1);
});
