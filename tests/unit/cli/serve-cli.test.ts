// `npm run cli -- serve` as a user starts it: it loads the model, builds the kernels a request
// needs (warm-up, src/model/warm-up.ts) before it listens, answers /health and a chat completion,
// and stops on SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliCommand } from '../../fixtures/cli-command';

/** The shipped default agent (it has a chat template). */
const MODEL = 'public/models/agent-tiny';

describe('serve CLI', () => {
  it('warms up its kernels, then listens and answers', async () => {
    const out = mkdtempSync(join(tmpdir(), 'serve-cli-'));
    const port = 20000 + Math.floor(Math.random() * 20000);
    const child = spawn(...cliCommand('serve', '--model', MODEL, '--quant', 'none', '--tune', 'false',
      '--port', String(port), '--max-batch', '4', '--out', out), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        const t = setInterval(() => {
          if (/serving "/.test(stderr)) { clearInterval(t); resolve(); }
          if (child.exitCode !== null) { clearInterval(t); reject(new Error(`serve exited: ${stderr}`)); }
        }, 50);
      });
      const ready = /kernels ready: (\d+) pipelines built in ([\d.]+) s/.exec(stderr);
      console.log(ready?.[0]);
      expect(ready, stderr).not.toBeNull();
      expect(Number(ready![1])).toBeGreaterThan(10);
      expect(stderr.indexOf('kernels ready')).toBeLessThan(stderr.indexOf('serving "'));
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'agent-tiny', messages: [{ role: 'user', content: 'What is 6*7?' }], max_tokens: 4, temperature: 0 }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const body = await res.json() as { choices: { message: { content: string } }[] };
      expect(body.choices).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 120_000);
});
