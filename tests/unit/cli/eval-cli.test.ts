// The `eval` command's policy and load options, run as the CLI in the test's process
// (tests/fixtures/cli-in-process.ts) on the shipped stories260K: a config naming model.adapter is
// evaluated with that adapter (the stderr header and the model line say so), --adapter overrides
// it, and --tune false skips kernel timing (the tuning store, a test's own, gets no choice) while
// the default times the kernels and remembers its choices there;
// --episodes writes each episode (task, grade, conversation) as a JSON line.
// Run: npx vitest run tests/unit/cli/eval-cli.test.ts
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { command as sftCommand } from '../../../src/cli/commands/sft';
import { parseArgs } from '../../../src/util/args';
import { cliInProcess } from '../../fixtures/cli-in-process';
import { useTestTuningStore } from '../helpers/tuning-store';

const ROOT = resolve(__dirname, '../../..');
const MODEL = join(ROOT, 'public/models/stories260K');

/** `sft` 1 LoRA step of the given rank in process (output muted); returns the adapter folder. */
async function sftAdapter(dir: string, rank: number): Promise<string> {
  const data = join(dir, 'stories.jsonl'), out = join(dir, `sft-r${rank}`);
  writeFileSync(data, ['Lily saw a big red ball.', 'Tom had a big dog.'].map((text) => JSON.stringify({ text })).join('\n') + '\n');
  const o = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const e = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const code = await sftCommand.run(parseArgs(['--model', MODEL, '--data', data, '--out', out, '--steps', '1', '--rank', String(rank),
      '--alpha', String(2 * rank), '--batch-size', '2', '--tune', 'false']));
    expect(code).toBe(0);
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  return join(out, 'adapter');
}

/** `eval` in the test's process, the kernel choices it times remembered in `tuning` only. */
function evalCli(tuning: Map<string, string>, ...args: string[]) {
  current = tuning;
  return cliInProcess(['eval', ...args, '--tasks', '1', '--samples', '1', '--set', 'rollout.max_new_tokens=4']);
}

/** The tuning store of the call under way (through useTestTuningStore, which starts with no choice in memory). */
let current = new Map<string, string>();

describe('cli eval', () => {
  it('uses the config\'s model.adapter unless --adapter overrides; honours --tune', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eval-cli-'));
    const a4 = await sftAdapter(dir, 4), a2 = await sftAdapter(dir, 2);
    const config = join(dir, 'c.yaml');
    writeFileSync(config, `model: {path: ${JSON.stringify(MODEL)}, quant: none, template: plain, adapter: ${JSON.stringify(a4)}}\n`
      + 'data: {env: story, story_words: [girl]}\nenv: {system_prompt: "Write a story about {word}."}\nlora: {mode: lora}\n');

    useTestTuningStore({ getItem: (k) => current.get(k) ?? null, setItem: (k, v) => void current.set(k, v) });
    const untuned = new Map<string, string>();
    const episodes = join(dir, 'episodes.jsonl');
    const fromConfig = await evalCli(untuned, '--config', config, '--tune', 'false', '--episodes', episodes);
    console.log(`eval (model.adapter, --tune false) stderr:\n${fromConfig.err}`);
    expect(fromConfig.code, fromConfig.err).toBe(0);
    expect(fromConfig.err).toContain('adapter r=4');
    expect(fromConfig.err).toContain(`eval: adapter ${a4} (model.adapter in the config)`);
    expect(JSON.parse(fromConfig.out.trim()).tasks).toBe(1);
    expect(untuned.size).toBe(0);   // no kernel was timed
    // --episodes: one JSON line per episode, with the task, the grade and the conversation.
    const lines = readFileSync(episodes, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ sample: 0, correct: expect.any(Boolean), reward: { total: expect.any(Number) }, num_turns: 1 });
    expect(typeof lines[0].task_id).toBe('string');
    expect((lines[0].messages as { role: string }[]).map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(fromConfig.err).toContain(`episodes: 1 written to ${episodes}`);

    const tuned = new Map<string, string>();
    const overridden = await evalCli(tuned, '--config', config, '--adapter', a2);
    console.log(`eval (--adapter, tuned) stderr:\n${overridden.err}`);
    expect(overridden.code, overridden.err).toBe(0);
    expect(overridden.err).toContain('adapter r=2');
    expect(overridden.err).not.toContain('adapter r=4');
    expect(overridden.err).toContain(`eval: adapter ${a2} (--adapter)`);
    expect(tuned.size).toBeGreaterThan(0);      // the default times the kernels and remembers them

    const base = await evalCli(untuned, '--config', config, '--set', 'model.adapter=null', '--tune', 'false');
    expect(base.code, base.err).toBe(0);
    expect(base.err).toContain('eval: base model, no adapter');
    expect(base.err).not.toMatch(/adapter r=\d/);
  }, 600_000);
});
