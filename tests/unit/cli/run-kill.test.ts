// Kill test: `npm run cli -- sft` (stories260K, LoRA r=2, a checkpoint every update) killed with
// SIGKILL at 4 seeded random moments (inside checkpoint / adapter writes, which a test hook slows
// down, right after an update, during start-up, and in a write again: each kind in turn), restarted with --resume each time,
// must end with the same adapter files (byte for byte), the same last checkpoint tensors
// (checkpoints/step-N, the last log.keep_checkpoints kept) and the same metrics.jsonl rows (every
// value but timings) as one uninterrupted run.
// Run: npx vitest run tests/unit/cli/run-kill.test.ts (about a minute: one process start per kill).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../src/util/rng';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { cliCommand } from '../../fixtures/cli-command';

const MODEL = join(STORIES_DIR, 'stories260K.bin');
const KILLS = 4;
const STEPS = 24;
const SENTENCES = ['Lily saw a big red ball.', 'Tom flew his kite.', 'The cat sat on the mat.', 'Sue found a bird.'];
/** Milliseconds the write hook pauses after each file of a checkpoint or export. */
const WRITE_PAUSE_MS = 30;

type Trigger = 'start' | 'step' | 'write';
interface Launch { code: number | null; killed: boolean; trigger: Trigger; sideFolders: string[] }

/** One `sft` process into `out`; with `trigger`, SIGKILLed at a random moment of that kind. */
function launch(args: string[], out: string, trigger: Trigger | null, rand: () => number): Promise<Launch> {
  const child = spawn(...cliCommand('sft', ...args), {
    env: { ...process.env, RL_STUDIO_TEST_WRITE_PAUSE_MS: String(WRITE_PAUSE_MS) }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '', stderr = '', killed = false;
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const writing = () => existsSync(join(out, 'adapter.tmp')) || sides(join(out, 'checkpoints')).some((d) => d.endsWith('.tmp'));
  const kill = () => { if (child.exitCode === null) { killed = child.kill('SIGKILL'); } };
  let poll: ReturnType<typeof setInterval> | undefined;
  if (trigger === 'start') setTimeout(kill, 300 + rand() * 2500);
  else if (trigger) {
    const delay = trigger === 'write' ? rand() * 2 * WRITE_PAUSE_MS : rand() * 200;
    poll = setInterval(() => {
      if (trigger === 'write' ? writing() : /^step \d+\//m.test(stdout)) {
        clearInterval(poll);
        setTimeout(kill, delay);
      }
    }, 2);
  }
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearInterval(poll);
      if (!killed && code !== 0) console.log(stderr);
      const sideFolders = [...sides(out), ...sides(join(out, 'checkpoints'))];
      resolve({ code, killed, trigger: trigger ?? 'start', sideFolders });
    });
  });
}

/** The .tmp / .old folders an interrupted write left in `dir`. */
const sides = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.tmp') || f.endsWith('.old')) : []);

/** metrics.jsonl rows without timings. */
const rows = (out: string) => readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) =>
  Object.fromEntries(Object.entries(JSON.parse(l) as Record<string, number>).filter(([k]) => k !== 'step_time' && !k.startsWith('perf/'))));

describe('SIGKILL at random moments', () => {
  it.skipIf(!existsSync(MODEL))(`${KILLS} kills, each resumed: the final adapter, checkpoint and metrics equal an uninterrupted run's`, async () => {
    const t0 = performance.now();
    const dir = mkdtempSync(join(tmpdir(), 'run-kill-'));
    const data = join(dir, 'stories.jsonl');
    writeFileSync(data, SENTENCES.map((text) => JSON.stringify({ text })).join('\n') + '\n');
    const args = (out: string) => ['--model', MODEL, '--data', data, '--out', out, '--quant', 'none', '--tune', 'false', '--rank', '2', '--lr', '1e-2',
      '--batch-size', '2', '--steps', String(STEPS), '--warmup', '2', '--save-every', '1', '--seed', '4'];
    const want = join(dir, 'uninterrupted'), got = join(dir, 'killed');
    expect((await launch(args(want), want, null, Math.random)).code).toBe(0);

    const rand = mulberry32(20261124);
    const kinds: Trigger[] = ['write', 'step', 'start'];
    const log: Launch[] = [];
    let kills = 0;
    while (kills < KILLS && log.length < 3 * KILLS) {
      const l = await launch([...args(got), '--resume'], got, kinds[kills % kinds.length], rand);
      log.push(l);
      if (l.killed) kills++;
      else expect(l.code).toBe(0);
    }
    const last = await launch([...args(got), '--resume'], got, null, rand);
    expect(last.code).toBe(0);
    const inWrites = log.filter((l) => l.killed && l.sideFolders.length).length;
    console.log(`kill test: ${kills} kills in ${log.length} launches (${kinds.map((k) => `${k} ${log.filter((l) => l.killed && l.trigger === k).length}`).join(', ')}), ` +
      `${inWrites} left a .tmp/.old folder behind; ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    expect(kills).toBe(KILLS);
    expect(inWrites).toBeGreaterThan(0);

    expect(rows(got)).toEqual(rows(want));
    expect(rows(got).map((r) => r.step)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
    for (const f of ['adapter/adapter_config.json', 'adapter/adapter_model.safetensors', `checkpoints/step-${STEPS}/state.safetensors`]) {
      expect(readFileSync(join(got, f)).equals(readFileSync(join(want, f))), f).toBe(true);
    }
    expect(readdirSync(got).sort()).toEqual(['adapter', 'checkpoints', 'config.yaml', 'metrics.jsonl', 'status.json']);
    // Keep-last-3 (the default): the uninterrupted run keeps the last three; a kill inside a
    // removal may leave one more older folder, never fewer, never a side folder.
    expect(readdirSync(join(want, 'checkpoints')).sort()).toEqual([STEPS - 2, STEPS - 1, STEPS].map((n) => `step-${n}`).sort());
    expect(readdirSync(join(got, 'checkpoints'))).toEqual(expect.arrayContaining(readdirSync(join(want, 'checkpoints'))));
    expect(sides(join(got, 'checkpoints'))).toEqual([]);
  }, 600_000);
});
