// A fresh clone works with no ../shared: the repo's files (`git ls-files`, tracked plus untracked
// not ignored, as they are in the working tree) are copied into a temp folder with nothing beside
// it, node_modules symlinked; there the default preset (no --config, no --model) trains GRPO for 2
// small steps and `eval` grades 2 held-out tasks with the adapter it wrote.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const base = mkdtempSync(join(tmpdir(), 'fresh-clone-'));
const clone = join(base, 'rl-studio');
const run = join(base, 'run');

function copyRepo(): number {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0').filter((f) => f && f.split('/')[0] !== 'node_modules' && existsSync(join(ROOT, f)) && lstatSync(join(ROOT, f)).isFile());
  for (const f of files) {
    mkdirSync(dirname(join(clone, f)), { recursive: true });
    copyFileSync(join(ROOT, f), join(clone, f));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  return files.length;
}

function npmCli(...args: string[]) {
  const t0 = performance.now();
  const r = spawnSync('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: clone, encoding: 'utf8', timeout: 600_000 });
  return { code: r.status, out: r.stdout, err: r.stderr, secs: (performance.now() - t0) / 1000 };
}

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('fresh clone (no ../shared)', () => {
  it('the default preset trains 2 GRPO steps and eval runs on its adapter', () => {
    const n = copyRepo();
    expect(readdirSync(base).sort()).toEqual(['rl-studio']);
    expect(existsSync(join(clone, '..', 'shared'))).toBe(false);

    // The smallest batch that is still GRPO (2 tasks x 2 episodes); everything else from the preset.
    const train = npmCli('train', '--out', run, '--tune', 'false', '--set', 'train.steps=2', '--set', 'rollout.batch_size=2', '--set', 'rollout.group_size=2');
    expect(train.code, train.err).toBe(0);
    expect(train.err).toContain('config: configs/agent_grpo.yaml (the default preset');
    expect(train.err).toContain('model: qwen2 L=4 C=64 V=1024, quant none');
    expect(train.err).toMatch(/memory plan \(rollout\.batch_size \d+ x group_size \d+ = \d+ episodes of up to \d+ tokens \(rollout\.max_tokens\)\):\n/);
    const rows = readFileSync(join(run, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>);
    expect(rows.map((r) => r.step)).toEqual([1, 2]);
    for (const r of rows) expect(Number.isFinite(r.loss)).toBe(true);
    expect(existsSync(join(run, 'adapter', 'adapter_model.safetensors'))).toBe(true);

    const ev = npmCli('eval', '--tasks', '2', '--adapter', join(run, 'adapter'));
    expect(ev.code, ev.err).toBe(0);
    const m = JSON.parse(ev.out.trim().split('\n').pop()!) as Record<string, number | string>;
    expect(m.split).toBe('eval');
    expect(m.tasks).toBe(2);
    expect(typeof m['eval/accuracy']).toBe('number');
    console.log(`fresh clone: ${n} files; train 2 steps ${train.secs.toFixed(1)} s, eval 2 tasks ${ev.secs.toFixed(1)} s; eval ${JSON.stringify(m)}`);
  }, 900_000);
});
