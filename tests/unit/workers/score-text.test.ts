// The engine worker's `score-text` request (src/workers/engine/score.ts) on agent-tiny in Node:
// the ids are the tokenizer's encode with special tokens (as `cli logprobs` reads a {"text"} line),
// one log-prob per token after the first equal to GpuModel.logprobs on those ids (the CLI's call),
// the pieces spell the text; a text over the context, a one-token text and a model that is training
// are refused with what to do. The browser-vs-CLI figures are in tests/e2e/studio-first-run.spec.ts.
import { describe, expect, it } from 'vitest';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles } from '../../../src/model/io/loader';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import { Policies, Serial, type ModelEntry } from '../../../src/workers/engine/policies';
import { scoreText } from '../../../src/workers/engine/score';
import { nodeRuntime } from '../helpers/gpu-helpers';

const TEXT = '<|im_start|>user\nWhat is 2 + 3?<|im_end|>\n<|im_start|>assistant\n<answer>5</answer><|im_end|>';

describe('score-text', () => {
  it('scores as cli logprobs does, and refuses what it cannot score', async () => {
    const rt = await nodeRuntime();
    const loaded = await loadModelFiles(await openNodeModelSource('public/models/agent-tiny'));
    const model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
    const entry: ModelEntry = { loaded, model, quant: 'none', quantEmbeddings: false, busy: null };
    const policies = new Policies((id) => (id === 'm' ? entry : undefined), () => Promise.resolve(rt));
    const serial = new Serial();
    const req = (text: string) => ({ kind: 'score-text' as const, id: 1, modelId: 'm', text });
    try {
      const r = await scoreText(policies, serial, req(TEXT));
      const ids = loaded.tokenizer.encode(TEXT, { addSpecialTokens: true });
      expect(r.ids).toEqual(ids);
      expect(r.pieces.join('')).toBe(TEXT);
      expect(r.logprobs).toHaveLength(ids.length - 1);
      const want = Array.from((await model.logprobs([ids])).logprobs[0]);
      const maxdiff = Math.max(...want.map((v, i) => Math.abs(v - r.logprobs[i])));
      console.log(`${ids.length} tokens, sum ${r.logprobs.reduce((a, b) => a + b, 0).toFixed(4)}, maxdiff vs GpuModel.logprobs ${maxdiff}`);
      expect(maxdiff).toBe(0);
      expect(r.logprobs.every((v) => Number.isFinite(v) && v <= 0)).toBe(true);

      await expect(scoreText(policies, serial, req('hi '.repeat(2000)))).rejects.toThrow(/more than the model's \d+; shorten it/);
      const one = loaded.tokenizer.decode(loaded.tokenizer.encode('<|im_end|>', { addSpecialTokens: true }));
      await expect(scoreText(policies, serial, req(one))).rejects.toThrow(/scoring needs at least 2/);
      entry.busy = 'having its step time measured';
      await expect(scoreText(policies, serial, req(TEXT))).rejects.toThrow(/is having its step time measured; wait for it to end/);
      await expect(scoreText(policies, serial, { ...req(TEXT), modelId: 'nope' })).rejects.toThrow(/no model "nope" loaded/);
    } finally {
      model.dispose();
    }
  }, 120_000);
});
