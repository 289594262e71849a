// The `time-step` request's measurement (src/workers/engine/step-time.ts) on agent-tiny in Node, at
// tiny shapes: every part is positive and the total is their sum, the decode part is the per-token
// time times a token bound that follows rollout.max_tokens (the ratio is printed, never asserted:
// timings are noisy here), typical lengths (a run's, a preview's) set the timed shapes in place of
// max_tokens, SFT times one train part, and the
// model's logits on a fixed input are bit-identical before and after (maxdiff printed, must be 0);
// the worker entry refuses a model that is training, a quant other than the loaded one, an unknown model.
import { describe, expect, it } from 'vitest';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles } from '../../../src/model/io/loader';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import { parseConfig } from '../../../src/rl/config-validate';
import { Policies, Serial, type ModelEntry } from '../../../src/workers/engine/policies';
import { measureStepTime, stepTimeRequest } from '../../../src/workers/engine/step-time';
import { nodeRuntime } from '../helpers/gpu-helpers';

const yaml = (trainer: string, maxTokens: number, extra = '') => `
trainer: ${trainer}
model: { path: public/models/agent-tiny, quant: none }
rollout: { batch_size: 2, group_size: 2, max_tokens: ${maxTokens}, max_new_tokens: ${maxTokens - 4}, max_turns: 1, temperature: 1.0 }
grpo: { micro_batch_size: 2, beta: 0.04, num_iterations: 2 }
data: { env: math${trainer === 'sft' ? ', max_length: 24, dataset: chat.jsonl' : ''} }
train: { steps: 2 }
${extra}`;

describe('time-step', () => {
  it('times decode, log-prob passes and training; scales with max_tokens; leaves the model as it was', async () => {
    const rt = await nodeRuntime();
    const loaded = await loadModelFiles(await openNodeModelSource('public/models/agent-tiny'));
    const model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
    const probe = [[1, 17, 42, 99, 5, 300, 7, 8]];
    try {
      const before = (await model.logprobs(probe)).logprobs[0];
      const stages: string[] = [];
      const a = await measureStepTime(rt, model, parseConfig(yaml('grpo', 16), 'config.yaml'), { onProgress: (_d, _t, s) => stages.push(s) });
      console.log(`grpo max_tokens 16: total ${a.totalMs.toFixed(1)} ms; ${a.parts.map((p) => `${p.name} ${p.ms.toFixed(1)} ms`).join(', ')}`);
      expect(a.parts.map((p) => p.name)).toEqual(['prefill', 'decode', 'old log-probs', 'reference', 'train']);
      for (const p of a.parts) expect(p.ms).toBeGreaterThan(0);
      expect(a.totalMs).toBeCloseTo(a.parts.reduce((s, p) => s + p.ms, 0), 6);
      expect(a.upTo).toBe(true);
      expect(a.decodeMsPerToken).toBeGreaterThan(0);
      expect(a.parts[1].what).toMatch(/4 sequences sampling .* x up to 12 tokens/);
      expect(stages).toEqual(['decode', 'log-prob passes', 'train', 'done']);

      const b = await measureStepTime(rt, model, parseConfig(yaml('grpo', 32), 'config.yaml'));
      const ratio = b.parts[1].ms / a.parts[1].ms;
      console.log(`decode part: ${a.parts[1].ms.toFixed(1)} ms at max_tokens 16 (12 sampled), ${b.parts[1].ms.toFixed(1)} ms at 32 (28 sampled; x${ratio.toFixed(2)}); train x${(b.parts[4].ms / a.parts[4].ms).toFixed(2)}`);
      // No timed assertion (shared, noisy machines): the decode part is the measured per-token time
      // times the token bound, and the bound follows max_tokens (12 -> 28 sampled tokens).
      expect(a.parts[1].ms / a.decodeMsPerToken!).toBeCloseTo(12, 6);
      expect(b.parts[1].ms / b.decodeMsPerToken!).toBeCloseTo(28, 6);
      expect(b.parts[1].what).toMatch(/x up to 28 tokens/);
      expect(b.lengths).toBe('upper bound at rollout.max_tokens 32');

      // Typical lengths (a previous run's episodes): 10 prompt + 6 completion tokens timed instead of 32.
      const c = await measureStepTime(rt, model, parseConfig(yaml('grpo', 32), 'config.yaml'), { lengths: { prompt: 10, completion: 6, decoded: null, from: 'mean of run r0' } });
      console.log(`typical 10 + 6 tokens: total ${c.totalMs.toFixed(1)} ms vs ${b.totalMs.toFixed(1)} ms at the upper bound (x${(c.totalMs / b.totalMs).toFixed(2)}); train x${(c.parts[4].ms / b.parts[4].ms).toFixed(2)}`);
      expect(c.lengths).toBe('at 10 prompt + 6 completion tokens (mean of run r0)');
      expect(c.upTo).toBe(false);
      expect(c.parts[1].ms / c.decodeMsPerToken!).toBeCloseTo(6, 6);
      expect(c.parts[0].what).toMatch(/4 sequences of 13 tokens prefilled \(the typical prompt and half the completion\)/);
      expect(c.parts[4].what).toMatch(/4 episodes x 16 tokens/);
      // A run's per-step figure: decode lasts until the episode sampling the most (5) ends.
      const e = await measureStepTime(rt, model, parseConfig(yaml('grpo', 32), 'config.yaml'), { lengths: { prompt: 10, completion: 6, decoded: 5, from: 'mean of run r0' } });
      expect(e.lengths).toBe('at 10 prompt + 6 completion tokens (mean of run r0; 5 sampled by a step\'s longest episode)');
      expect(e.parts[1].ms / e.decodeMsPerToken!).toBeCloseTo(5, 6);
      // Only the prompt known (the Datasets preview): the completion stays at its bound, the total an upper bound.
      const d = await measureStepTime(rt, model, parseConfig(yaml('grpo', 32), 'config.yaml'), { lengths: { prompt: 10, completion: null, decoded: null, from: 'mean of the 3 previewed tasks of t.jsonl' } });
      expect(d.lengths).toBe('at 10 prompt + up to 22 completion tokens (mean of the 3 previewed tasks of t.jsonl; completion at max_new_tokens x max_turns)');
      expect(d.upTo).toBe(true);

      const s = await measureStepTime(rt, model, parseConfig(yaml('sft', 16), 'config.yaml'));
      console.log(`sft 2 rows x 24: train ${s.totalMs.toFixed(1)} ms`);
      expect(s.parts.map((p) => p.name)).toEqual(['train']);
      expect(s.parts[0].what).toMatch(/2 rows x 24 tokens/);
      expect(s.upTo).toBe(false);

      const after = (await model.logprobs(probe)).logprobs[0];
      const maxdiff = Math.max(...Array.from(before, (v, i) => Math.abs(v - after[i])));
      console.log(`logprobs of a fixed input before vs after the measurements: maxdiff ${maxdiff}`);
      expect(maxdiff).toBe(0);
    } finally {
      model.dispose();
    }
  }, 300_000);

  it('full mode restores the trained weights', async () => {
    const rt = await nodeRuntime();
    const loaded = await loadModelFiles(await openNodeModelSource('public/models/agent-tiny'));
    const model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
    const probe = [[3, 14, 15, 92, 65, 35]];
    try {
      const before = (await model.logprobs(probe)).logprobs[0];
      const r = await measureStepTime(rt, model, parseConfig(yaml('grpo', 12, 'lora: { mode: full }\noptim: { lr: 0.01 }'), 'config.yaml'));
      expect(r.parts.at(-1)?.ms).toBeGreaterThan(0);
      const after = (await model.logprobs(probe)).logprobs[0];
      const maxdiff = Math.max(...Array.from(before, (v, i) => Math.abs(v - after[i])));
      console.log(`full mode: logprobs before vs after: maxdiff ${maxdiff}`);
      expect(maxdiff).toBe(0);
    } finally {
      model.dispose();
    }
  }, 300_000);

  it('the worker entry refuses what it cannot time, saying what to do', async () => {
    const rt = await nodeRuntime();
    const loaded = await loadModelFiles(await openNodeModelSource('public/models/agent-tiny'));
    const model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
    const entry: ModelEntry = { loaded, model, quant: 'none', quantEmbeddings: false, busy: 'training run r1' };
    const policies = new Policies((id) => (id === 'm' ? entry : undefined), () => Promise.resolve(rt));
    const req = (configYaml: string, modelId = 'm') => ({ kind: 'time-step' as const, id: 1, modelId, configYaml });
    const none = () => undefined;
    try {
      await expect(stepTimeRequest(policies, new Serial(), req(yaml('grpo', 16)), none)).rejects.toThrow(/model m is training run r1; wait for it to end/);
      entry.busy = null;
      await expect(stepTimeRequest(policies, new Serial(), req(yaml('grpo', 16).replace('quant: none', 'quant: nf4')), none)).rejects.toThrow(/model\.quant nf4 differs from the loaded model's \(none\)/);
      await expect(stepTimeRequest(policies, new Serial(), req(yaml('grpo', 16), 'nope'), none)).rejects.toThrow(/no model "nope" loaded/);
      const stages: string[] = [];
      const r = await stepTimeRequest(policies, new Serial(), req(yaml('grpo', 12)), (_d, _t, s) => stages.push(s));
      expect(r.totalMs).toBeGreaterThan(0);
      expect(stages.at(-1)).toBe('done');
      expect(entry.busy).toBeNull();
    } finally {
      model.dispose();
    }
  }, 300_000);
});
