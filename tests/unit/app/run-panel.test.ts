// The Run panel's pure parts: the event reducer (status, rows with their times, the last N
// rollouts, warnings, terminal phases beating a stale status), Start's model and data choices,
// the chart groups shown for a run's metric names and the EMA, the rollout table's rows and filter,
// who produced each token (loss mask), and per-token text under the real stories260K tokenizer.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Tokenizer } from '../../../src/model/tokenizer';
import { DEFAULT_CONFIG } from '../../../src/rl/config-schema';
import type { RlConfig } from '../../../src/rl/config-validate';
import type { RolloutRecord } from '../../../src/rl/rollout-log';
import type { RunEvent } from '../../../src/run/events';
import { applyRunEvents, applyStatus, failureText, KEPT_ROLLOUTS, newRunView } from '../../../src/store/run-view';
import { dataForConfig, modelForConfig } from '../../../src/store/run-start';
import { CHART_GROUPS, chartPoints, ema, groupSeries, presentMetrics } from '../../../src/ui/run/chart-groups';
import { filterRollouts, rolloutRow } from '../../../src/ui/run/rollout-rows';
import { tokenCells } from '../../../src/ui/run/token-spans';
import { tokenPieces } from '../../../src/workers/engine/decode';

const record = (step: number, sample: number, over: Partial<RolloutRecord> = {}): RolloutRecord => ({
  step, prompt_index: 0, sample, task_id: `t${step}`, tokens: [1, 2, 3, 4], mask: [0, 1, 1, 0], logprobs: [null, -0.5, -1, null],
  tool_calls: [], reward: { total: 1, parts: { a: 1 }, final: { a: 1 }, turns: [1] }, advantage: 0.5, finish_reason: 'stop',
  truncated: false, num_turns: 1, text: `user: q${step}\nassistant: a`, ...over,
});

const cfg = (over: { trainer?: RlConfig['trainer']; model?: Partial<RlConfig['model']>; data?: Partial<RlConfig['data']> }): RlConfig => {
  const d = DEFAULT_CONFIG;
  return { ...d, trainer: over.trainer ?? 'grpo', model: { ...d.model, ...over.model }, data: { ...d.data, ...over.data } };
};

describe('run view reducer', () => {
  it('folds started / metrics / rollout / warning / progress / checkpoint / cancelled', () => {
    const v0 = newRunView('r1', 'model-1', 1000);
    const evs: RunEvent[] = [
      { kind: 'started', runId: 'r1', trainer: 'grpo', plan: null, totalSteps: 5, startStep: 0 },
      { kind: 'metrics', row: { step: 1, reward: 0.5 } },
      { kind: 'rollout', record: record(1, 0) },
      { kind: 'rollout', record: record(1, 1) },
      { kind: 'warning', step: 1, message: 'loss 0, no update: every group had zero reward variance' },
      { kind: 'progress', step: 1, total: 5, elapsedMs: 2000, etaMs: 8000 },
    ];
    const v1 = applyRunEvents(v0, evs, 3500);
    expect(v1).not.toBe(v0);
    expect(v0.rows).toEqual([]);   // not mutated
    expect(v1).toMatchObject({ phase: 'running', trainer: 'grpo', step: 1, total: 5, etaMs: 8000, rolloutCount: 2 });
    expect(v1.rows).toEqual([{ step: 1, reward: 0.5 }]);
    expect(v1.rowSeconds).toEqual([2]);   // the loop's elapsed time at step 1 (progress), not the arrival time
    expect(applyRunEvents(v0, evs.slice(0, 2), 3500).rowSeconds).toEqual([2.5]);   // until progress arrives
    expect(v1.warnings).toEqual([{ step: 1, message: 'loss 0, no update: every group had zero reward variance' }]);
    const v2 = applyRunEvents(v1, [{ kind: 'checkpoint', step: 2, path: 'checkpoints/step-2' }, { kind: 'cancelled', step: 2, lastCheckpoint: 'checkpoints/step-2' }], 4000);
    expect(v2).toMatchObject({ phase: 'cancelled', step: 2, lastCheckpoint: 'checkpoints/step-2' });
    // A status read before the terminal event does not bring the run back to life.
    expect(applyStatus(v2, { runId: 'r1', phase: 'running', holding: false, step: 2, total: 5, lastCheckpoint: null, error: null }).phase).toBe('cancelled');
    expect(applyStatus(v1, { runId: 'r1', phase: 'paused', holding: true, step: 1, total: 5, lastCheckpoint: null, error: null })).toMatchObject({ phase: 'paused', holding: true });
  });

  it('keeps the last KEPT_ROLLOUTS episodes and counts them all', () => {
    const evs: RunEvent[] = Array.from({ length: KEPT_ROLLOUTS + 10 }, (_, i) => ({ kind: 'rollout', record: record(1, i) }));
    const v = applyRunEvents(newRunView('r', null, 0), evs, 0);
    expect(v.rollouts).toHaveLength(KEPT_ROLLOUTS);
    expect(v.rollouts[0].sample).toBe(10);
    expect(v.rolloutCount).toBe(KEPT_ROLLOUTS + 10);
  });

  it('a failed run keeps its message and last checkpoint', () => {
    const v = applyRunEvents(newRunView('r', null, 0), [{ kind: 'failed', step: 3, message: 'GPU device lost', lastCheckpoint: 'checkpoints/step-2' }], 0);
    expect(v).toMatchObject({ phase: 'failed', error: 'GPU device lost', lastCheckpoint: 'checkpoints/step-2' });
    expect(failureText(v)).toBe('GPU device lost. Resume from checkpoints/step-2 in the Runs panel.');
    const crashed = applyRunEvents(newRunView('r', null, 0), [{ kind: 'failed', step: -1, message: 'the engine worker crashed (boom); reload the page to start a new one; no checkpoint was written', lastCheckpoint: null }], 0);
    expect(failureText(crashed)).toBe('the engine worker crashed (boom); reload the page to start a new one; no checkpoint was written. It wrote no checkpoint: start it again from the Config panel.');
    expect(failureText(newRunView('r', null, 0))).toBeNull();
  });

  it('a resume after a failure drops the rows past its checkpoint, so the steps that come again are not doubled', () => {
    const row = (step: number): RunEvent => ({ kind: 'metrics', row: { step, loss: step / 10 } });
    const first = applyRunEvents(newRunView('r', null, 0), [
      { kind: 'started', runId: 'r', trainer: 'grpo', plan: null, totalSteps: 9, startStep: 0 }, row(1), row(2), row(3),
      { kind: 'warning', step: 3, message: 'loss 0, no update' }, { kind: 'rollout', record: record(2, 0) }, { kind: 'rollout', record: record(3, 0) },
      { kind: 'failed', step: 3, message: 'The GPU device was lost', lastCheckpoint: 'checkpoints/step-2' },
    ], 0);
    expect(first.rows.map((r) => r.step)).toEqual([1, 2, 3]);
    const resumed = applyRunEvents(first, [{ kind: 'started', runId: 'r', trainer: 'grpo', plan: null, totalSteps: 9, startStep: 2 }, row(3), row(4)], 0);
    expect(resumed.rows.map((r) => r.step)).toEqual([1, 2, 3, 4]);
    expect(resumed.rowSeconds).toHaveLength(4);
    expect(resumed.error).toBeNull();
    expect(resumed.phase).toBe('running');
    expect(resumed.warnings).toEqual([]);
    expect(resumed.rollouts.map((r) => r.step)).toEqual([2]);
    expect(resumed.rolloutCount).toBe(1);
  });
});

describe('Start choices', () => {
  const models = [{ name: 'agent-tiny', shipped: true }, { name: 'stories260K', shipped: true }];
  it('model.path public/models/NAME or /models/NAME picks that model, else the selected one', () => {
    expect(modelForConfig(cfg({ model: { path: 'public/models/stories260K' } }), models, 'agent-tiny')).toEqual({ name: 'stories260K' });
    expect(modelForConfig(cfg({ model: { path: '/models/agent-tiny/' } }), models, 'stories260K')).toEqual({ name: 'agent-tiny' });
    expect(modelForConfig(cfg({ model: { path: 'Qwen/Qwen2.5-0.5B' } }), models, 'stories260K')).toEqual({ name: 'stories260K' });
    const bad = modelForConfig(cfg({ model: { path: 'public/models/nope' } }), models, 'agent-tiny');
    expect(bad).toEqual({ error: expect.stringContaining('model.path public/models/nope names no model the studio has (shipped: agent-tiny, stories260K)') });
  });

  it('data: story none, shipped train file per env, the opened dataset when named or sft, errors saying what to open', () => {
    expect(dataForConfig(cfg({ data: { env: 'story' } }), null)).toEqual({ kind: 'none' });
    expect(dataForConfig(cfg({ data: { env: 'agent' } }), null)).toEqual({ kind: 'shipped', file: 'agent_train.jsonl' });
    expect(dataForConfig(cfg({ data: { env: 'math' } }), 'x.jsonl')).toEqual({ kind: 'shipped', file: 'gsm8k_train.jsonl' });
    expect(dataForConfig(cfg({ data: { env: 'math', dataset: 'data/my.jsonl' } }), 'my.jsonl')).toEqual({ kind: 'opened', fileName: 'my.jsonl' });
    expect(dataForConfig(cfg({ data: { env: 'math', dataset: 'data/my.jsonl' } }), 'other.jsonl'))
      .toEqual({ error: 'config.yaml: data.dataset is data/my.jsonl, but the Datasets panel has other.jsonl open; open my.jsonl in the Datasets panel, or remove data.dataset to use the env\'s shipped file' });
    expect(dataForConfig(cfg({ trainer: 'sft' }), 'chat.jsonl')).toEqual({ kind: 'opened', fileName: 'chat.jsonl' });
    expect(dataForConfig(cfg({ trainer: 'sft' }), null)).toEqual({ error: expect.stringContaining('open one in the Datasets panel') });
  });
});

describe('charts', () => {
  const rows = [
    { step: 1, reward: 0, reward_std: 1, 'rewards/mentions/mean': 0, entropy: 1.2, kl: NaN, 'tools/call_frequency': 0 },
    { step: 2, reward: 1, reward_std: 1, 'rewards/mentions/mean': 1, entropy: 1.1, kl: NaN, 'tools/call_frequency': 0 },
  ];
  it('shows only groups whose metrics appear (finite), reward functions join the reward chart', () => {
    const present = presentMetrics(rows);
    const shown = CHART_GROUPS.map((g) => [g.id, groupSeries(g, present)] as const).filter(([, n]) => n.length);
    expect(shown).toEqual([['reward', ['reward', 'reward_std', 'rewards/mentions/mean']], ['entropy', ['entropy']], ['tools', ['tools/call_frequency']]]);
  });
  it('EMA: off is raw, bias-corrected (first value kept), NaN skipped', () => {
    expect(ema([1, 2, 3], 0)).toEqual([1, 2, 3]);
    const s = ema([1, NaN, 3], 0.5);
    expect(s[0]).toBe(1);
    expect(s[1]).toBeNaN();
    expect(s[2]).toBeCloseTo((0.25 * 1 + 0.5 * 3) / 0.75, 12);   // (0.5*0.5*1 + 0.5*3) / (1 - 0.25)
  });
  it('points on the step or time axis', () => {
    expect(chartPoints(rows, [0.5, 2.25], ['reward'], 'step', 0)).toEqual([{ x: 1, reward: 0 }, { x: 2, reward: 1 }]);
    expect(chartPoints(rows, [0.5, 2.25], ['kl'], 'time', 0)).toEqual([{ x: 0.5, kl: null }, { x: 2.3, kl: null }]);
  });
});

describe('rollout rows and tokens', () => {
  it('rows: generated length from the mask, failed calls, newest first; the filter', () => {
    const failing = record(2, 0, { tool_calls: [{ turn: 0, name: 'python', args: { code: '1/0' }, ok: false, error: 'ZeroDivisionError', latency_ms: 3, truncated: false }], finish_reason: 'max_turns' });
    const recs = [record(1, 0), failing, record(3, 1, { error: 'tool timed out', finish_reason: 'error' })];
    expect(rolloutRow(failing)).toMatchObject({ key: '2.0.0', length: 2, toolCalls: 1, failedCalls: 1 });
    expect(filterRollouts(recs, { text: '', finish: '', errorsOnly: false }).map((r) => r.key)).toEqual(['3.0.1', '2.0.0', '1.0.0']);
    expect(filterRollouts(recs, { text: '', finish: '', errorsOnly: true }).map((r) => r.key)).toEqual(['3.0.1', '2.0.0']);
    expect(filterRollouts(recs, { text: 'TIMED', finish: '', errorsOnly: false }).map((r) => r.key)).toEqual(['3.0.1']);
    expect(filterRollouts(recs, { text: '', finish: 'max_turns', errorsOnly: false }).map((r) => r.key)).toEqual(['2.0.0']);
  });
  it('token sources from the mask: prompt before the first generated token, inserted after', () => {
    const cells = tokenCells([5, 6, 7, 8, 9], [0, 1, 0, 1, 0], [null, -0.1, null, -2, null], ['a', 'b', 'c', 'd', 'e']);
    expect(cells.map((c) => c.source)).toEqual(['prompt', 'policy', 'inserted', 'policy', 'inserted']);
    expect(cells.map((c) => c.logprob)).toEqual([null, -0.1, null, -2, null]);
    expect(tokenCells([5], [0], [null], null)[0].text).toBe('[5]');
  });
  it('token pieces under stories260K join back to the decoded text', () => {
    const tok = new Tokenizer(JSON.parse(readFileSync('public/models/stories260K/tokenizer.json', 'utf8')), JSON.parse(readFileSync('public/models/stories260K/tokenizer_config.json', 'utf8')));
    const ids = tok.encode('Once upon a time, there was a big dog named Max.');
    const pieces = tokenPieces(tok, ids);
    expect(pieces).toHaveLength(ids.length);
    expect(pieces.join('')).toBe(tok.decode(ids));
    expect(pieces.some((p) => p.startsWith(' '))).toBe(true);   // SentencePiece spaces land on their token
    console.log(`stories260K: ${ids.length} tokens -> ${JSON.stringify(pieces.slice(0, 8))}`);
  });
});
