// `npm run cli -- sft` end to end (in the test's process: tests/fixtures/cli-in-process.ts) on stories260K: a small JSONL of story
// sentences ({"text"} lines plus one bad line), 5 LoRA updates with a checkpoint every 2: one
// progress line per update with a falling loss, the skipped line reported, the memory plan
// printed, metrics.jsonl with the vocabulary's names, checkpoints/step-N/ loadable by loadTrainState,
// adapter/ in PEFT format loadable by `generate --adapter`; then --resume to step 6 (keep 2:
// the last two step folders stay, the setting taken from the run's config.yaml, not passed again),
// after which config.yaml still holds the run's own settings with the new step count.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { isMetricName } from '../../../src/metrics/names';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { readJson } from '../../../src/model/io/source';
import { loadTrainState } from '../../../src/train/checkpoint';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { cliInProcess } from '../../fixtures/cli-in-process';

const MODEL = join(STORIES_DIR, 'stories260K.bin');

const cli = (...args: string[]) => cliInProcess(args);

const losses = (out: string) => [...out.matchAll(/^step (\d+)\/\d+ +loss ([\d.]+) +grad_norm [\d.]+ +learning_rate \S+ +tokens\/s [\d.]+$/gm)].map((m) => Number(m[2]));

describe('cli sft', () => {
  it.skipIf(!existsSync(MODEL))('trains 5 LoRA updates, writes metrics, checkpoint and a PEFT adapter that generate loads; resumes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sft-cli-'));
    const data = join(dir, 'stories.jsonl'), out = join(dir, 'run');
    const sentences = ['Lily saw a big red ball in the park.', 'Tom wanted to fly his blue kite with his dad.', 'The cat sat on the warm mat and fell asleep.', 'Sue found a little bird under the tree.'];
    writeFileSync(data, [...sentences.map((text) => JSON.stringify({ text })), '{"text": 42}'].join('\n') + '\n');
    const t0 = performance.now();
    const r = await cli('sft', '--model', MODEL, '--data', data, '--out', out, '--steps', '5', '--rank', '4', '--lr', '1e-2', '--batch-size', '4',
      '--schedule', 'constant', '--save-every', '2', '--seed', '1', '--set', 'log.keep_checkpoints=2');
    const secs = (performance.now() - t0) / 1000;
    if (r.code !== 0) console.log(r.err);
    expect(r.code).toBe(0);
    const l = losses(r.out);
    console.log(`cli sft: ${secs.toFixed(1)} s, losses ${l.map((x) => x.toFixed(3)).join(' ')}; ${r.err.trim().split('\n').pop()}`);
    expect(l).toHaveLength(5);
    expect(l[4]).toBeLessThan(0.6 * l[0]);
    expect(r.err).toContain('stories.jsonl:5: "text" is 42');
    expect(r.err).toMatch(/memory plan[^\n]*\n[\s\S]*total \(peak of the pool/);
    expect(r.err).toContain('checkpoint: ');

    const rows = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((x) => JSON.parse(x) as Record<string, number>);
    expect(rows.map((x) => x.step)).toEqual([1, 2, 3, 4, 5]);
    expect(rows.map((x) => x.loss.toFixed(4))).toEqual(l.map((x) => x.toFixed(4)));
    for (const k of Object.keys(rows[0]).filter((k) => k !== 'step')) expect(isMetricName(k)).toBe(true);
    expect(Object.keys(rows[0])).toEqual(expect.arrayContaining(['loss', 'grad_norm', 'learning_rate', 'perf/train_tokens_per_s']));

    // Checkpoints after updates 2, 4 and 5 (the end); keep 2 removed step-2 once step-5 was complete.
    expect(readdirSync(join(out, 'checkpoints')).sort()).toEqual(['step-4', 'step-5']);
    const state = await loadTrainState(new NodeDirSource(join(out, 'checkpoints', 'step-5')));
    expect(state.step).toBe(5);
    expect(state.lora).toEqual({ rank: 4, alpha: 8, useRslora: false, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] });
    expect(await readJson(new NodeDirSource(join(out, 'adapter')), 'adapter_config.json')).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8, task_type: 'CAUSAL_LM' });
    expect(JSON.parse(readFileSync(join(out, 'status.json'), 'utf8'))).toMatchObject({ state: 'finished', step: 5 });

    const g = await cli('generate', '--model', MODEL, '--adapter', join(out, 'adapter'), '--prompt', 'Lily saw', '--temperature', '0', '--max-new-tokens', '12');
    console.log(`generate --adapter: ${JSON.stringify(g.out.trim())}`);
    expect(g.code).toBe(0);
    expect(g.err).toContain('adapter r=4');
    expect(g.out).toContain('a big red ball'); // the trained sentence

    // keep 2 is not passed again: the resumed run keeps its config.yaml's log.keep_checkpoints.
    const res = await cli('sft', '--model', MODEL, '--resume', out, '--steps', '6');
    expect(res.code).toBe(0);
    const l2 = losses(res.out);
    console.log(`resume: step 6 loss ${l2[0]?.toFixed(3)}`);
    expect(res.out).toMatch(/^step 6\/6 /m);
    expect(l2).toHaveLength(1);
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(6);
    expect((await loadTrainState(new NodeDirSource(join(out, 'checkpoints', 'step-6')))).step).toBe(6);
    expect(readdirSync(join(out, 'checkpoints')).sort()).toEqual(['step-5', 'step-6']);
    // config.yaml still records the run's own settings (not the resume's defaults), with the new step count.
    const saved = parse(readFileSync(join(out, 'config.yaml'), 'utf8')) as { optim: { lr: number; schedule: string }; lora: { rank: number }; train: { steps: number; seed: number }; data: { dataset: string } };
    expect(saved).toMatchObject({ optim: { lr: 1e-2, schedule: 'constant' }, lora: { rank: 4 }, train: { steps: 6, seed: 1 }, data: { dataset: data } });
  }, 400_000);   // 60 s on a quiet machine, 134 s seen at a load average of 13
});

