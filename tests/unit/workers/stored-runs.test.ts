// The engine worker's stored-run summaries (src/workers/engine/runs.ts summarize, over a Node
// folder through the same RunStorage interface OPFS implements): state from status.json, cut off
// without it, finished by its export folder for a CLI run, live while the worker trains it; steps
// from the last complete metrics.jsonl row; the newest complete checkpoint; run ids and the data
// a resume uses.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeFsStorage } from '../../../src/run/node-storage';
import { checkRunId, resumeDataset, summarize } from '../../../src/workers/engine/runs';

const folder = () => new NodeFsStorage(mkdtempSync(join(tmpdir(), 'stored-run-')));
const SFT = 'trainer: sft\nmodel:\n  path: public/models/stories260K\n  quant: none\ntrain:\n  steps: 10\n';
const GRPO = 'trainer: grpo\nmodel:\n  path: public/models/agent-tiny\ndata:\n  env: story\ntrain:\n  steps: 8\n';

describe('stored run summaries', () => {
  it('an SFT folder with no end record is cut off; steps from the last complete row', async () => {
    const s = folder();
    await s.writeFile('config.yaml', SFT);
    await s.writeFile('metrics.jsonl', '{"step":1,"loss":2}\n{"step":2,"loss":1.5}\n{"step":3,"lo');
    await s.writeFolder('checkpoint', new Map([['state.json', new TextEncoder().encode('{}')]]));
    let r = await summarize('a', s, null);
    // An SFT run made before the one layout names its checkpoint/ ...
    expect(r.lastCheckpoint).toBe('checkpoint');
    // ... and the newest complete checkpoints/step-N wins (step-3 has no state.json yet).
    await s.writeFolder('checkpoints/step-2', new Map([['state.json', new TextEncoder().encode('{}')]]));
    await s.writeFolder('checkpoints/step-3', new Map([['state.safetensors', new Uint8Array(4)]]));
    r = await summarize('a', s, null);
    console.log(JSON.stringify(r));
    expect(r).toMatchObject({ runId: 'a', trainer: 'sft', env: null, model: 'public/models/stories260K', quant: 'none', quantEmbeddings: false, steps: 2, totalSteps: 10, lastCheckpoint: 'checkpoints/step-2', state: 'cut-off' });
  });

  it('status.json names the end; a CLI folder with adapter/ is finished; a live run is live', async () => {
    const s = folder();
    await s.writeFile('config.yaml', GRPO);
    await s.writeFile('metrics.jsonl', '{"step":1}\n{"step":2}\n');
    for (const n of [1, 2]) await s.writeFolder(`checkpoints/step-${n}`, new Map([['state.json', new TextEncoder().encode('{}')]]));
    await s.writeFolder('checkpoints/step-3.tmp', new Map([['state.safetensors', new Uint8Array(4)]]));
    await s.writeFile('status.json', JSON.stringify({ state: 'failed', step: 2, lastCheckpoint: 'checkpoints/step-2', message: 'GPU device lost', at: '2026-01-01T00:00:00Z' }));
    expect(await summarize('b', s, null)).toMatchObject({ trainer: 'grpo', env: 'story', quant: 'nf4', steps: 2, lastCheckpoint: 'checkpoints/step-2', state: 'failed', message: 'GPU device lost' });
    // model.quant_embeddings reaches the summary, so Resume loads the model as the run was trained.
    await s.writeFile('config.yaml', GRPO.replace('  path: public/models/agent-tiny\n', '  path: public/models/agent-tiny\n  quant_embeddings: true\n'));
    expect(await summarize('b', s, null)).toMatchObject({ quant: 'nf4', quantEmbeddings: true });
    await s.writeFile('config.yaml', GRPO);
    await s.remove('status.json');
    expect((await summarize('b', s, null)).state).toBe('cut-off');
    await s.writeFolder('adapter', new Map([['adapter_config.json', new TextEncoder().encode('{}')]]));
    expect((await summarize('b', s, null)).state).toBe('finished');
    const live = await summarize('b', s, { runId: 'b', phase: 'running', holding: false, step: 3, total: 8, lastCheckpoint: null, error: null });
    expect(live).toMatchObject({ state: 'live', steps: 3, totalSteps: 8, message: 'running' });
  });

  it('a broken config.yaml is reported, not thrown', async () => {
    const s = folder();
    await s.writeFile('config.yaml', 'trainer: [sft\n');
    await s.writeFile('metrics.jsonl', '');
    const r = await summarize('c', s, null);
    expect(r.message).toMatch(/^config\.yaml: /);
    expect(r.steps).toBe(0);
  });

  it('run ids are one folder name; a resume takes the given data, the noted one, or the shipped file of config data.dataset', () => {
    expect(checkRunId('run-2026_01.a')).toBe('run-2026_01.a');
    for (const bad of ['', '..', 'a/b', 'x.tmp', 'sp ace']) expect(() => checkRunId(bad), bad).toThrow(/use 1-128 letters/);
    const text = { text: '{}', name: 'd.jsonl' };
    expect(resumeDataset(text, { shipped: 'x' }, 'y', 'sft', 'math')).toBe(text);
    expect(resumeDataset(undefined, text, 'y', 'sft', 'math')).toBe(text);
    expect(resumeDataset(undefined, null, 'datasets/agent_sft.jsonl', 'sft', 'math')).toEqual({ shipped: 'agent_sft.jsonl' });
    expect(resumeDataset(undefined, null, null, 'grpo', 'story')).toBeUndefined();
    expect(() => resumeDataset(undefined, null, null, 'sft', 'math')).toThrow(/names no data file/);
  });
});
