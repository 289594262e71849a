// The CLI's model commands end to end (in the test's process, tests/fixtures/cli-in-process.ts): `generate` (greedy stories260K from BOS
// gives the start of the documented text, tokens/s on stderr) and `logprobs` (one output line per
// input line, bad lines named by line number), plus --help listing the commands; the same greedy
// text with Dawn's robustness off (RL_STUDIO_GPU_ROBUSTNESS=off, said on stderr; in a child process,
// since a process chooses it when it opens its device), a bad value refused.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { greedySample, STORIES_DIR } from '../../fixtures/io/stories260k';
import { cliCommand } from '../../fixtures/cli-command';
import { cliInProcess } from '../../fixtures/cli-in-process';

const cli = (...args: string[]) => cliInProcess(args);

/** In a child process: Dawn's robustness is chosen when a process opens its device. */
function cliEnv(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(...cliCommand(...args), { encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const MODEL = join(STORIES_DIR, 'stories260K.bin');

describe('cli generate / logprobs', () => {
  it('lists the commands', async () => {
    const r = await cli('--help');
    expect(r.out).toContain('generate');
    expect(r.out).toContain('logprobs');
  });

  it('generate: greedy from BOS continues like the documented sample', async () => {
    const r = await cli('generate', '--model', MODEL, '--temperature', '0', '--max-new-tokens', '40', '--quant', 'none');
    expect(r.code).toBe(0);
    const text = r.out.trim();
    console.log(`cli generate: ${JSON.stringify(text.slice(0, 100))}; ${r.err.trim().split('\n').pop()}`);
    expect(text.length).toBeGreaterThan(40);
    expect(greedySample().startsWith(text)).toBe(true);
    expect(r.err).toMatch(/tokens\/s/);
  });

  it('generate with RL_STUDIO_GPU_ROBUSTNESS=off: the same greedy text, the trade said on stderr; a bad value refused', () => {
    const args = ['generate', '--model', MODEL, '--temperature', '0', '--max-new-tokens', '40', '--quant', 'none', '--tune', 'false'];
    const off = cliEnv({ RL_STUDIO_GPU_ROBUSTNESS: 'off' }, ...args);
    expect(off.code, off.err).toBe(0);
    expect(off.err).toContain('gpu: robustness off (RL_STUDIO_GPU_ROBUSTNESS=off)');
    const text = off.out.trim();
    expect(text.length).toBeGreaterThan(40);
    expect(greedySample().startsWith(text)).toBe(true);
    const bad = cliEnv({ RL_STUDIO_GPU_ROBUSTNESS: 'fast' }, ...args);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('RL_STUDIO_GPU_ROBUSTNESS must be "on" or "off", got "fast"');
  });

  it('logprobs: one line per input line; bad, null and over-long lines named by line, the rest scored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lp-'));
    const input = join(dir, 'in.jsonl'), out = join(dir, 'out.jsonl');
    const long = JSON.stringify({ ids: Array.from({ length: 600 }, (_, i) => 1 + (i % 400)) });
    writeFileSync(input, `\uFEFF{"text": "Once upon a time"}\n{"ids": [1, 403, 407]}\n{oops\nnull\n${long}\n`);
    const r = await cli('logprobs', '--model', MODEL, '--input', input, '--out', out, '--quant', 'none');
    console.log(r.err.trim().split('\n').filter((l) => l.includes('in.jsonl')).join('\n'));
    expect(r.code).toBe(0);
    expect(r.err).toContain('in.jsonl:3: not valid JSON');
    expect(r.err).toContain('in.jsonl:4: is null; each line must be one JSON object');
    expect(r.err).toMatch(/in\.jsonl:5: "ids" gives 600 tokens, more than the model's \d+; skipped/);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { logprobs?: number[]; error?: string });
    expect(lines.length).toBe(5);
    expect(lines[1].logprobs!.length).toBe(2);
    expect(lines[0].logprobs!.every((x) => x < 0)).toBe(true);
    expect(lines[2].error).toContain(':3:');
    expect(lines[4].error).toContain(':5:');
    const cut = await cli('logprobs', '--model', MODEL, '--input', input, '--out', out, '--quant', 'none', '--too-long', 'truncate', '--overwrite');
    expect(cut.err).toMatch(/in\.jsonl:5: warning: "ids" gives 600 tokens; truncated to the model's \d+/);
    const max = Number(/truncated to the model's (\d+)/.exec(cut.err)![1]);
    const cutLines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { logprobs?: number[] });
    expect(cutLines[4].logprobs!.length).toBe(max - 1);
  });

  it('names a missing model path and what to pass', async () => {
    const r = await cli('generate', '--model', '/nonexistent/model');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/not found at \/nonexistent\/model/);
  });
});
