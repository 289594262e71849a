// The CPU reference decoder (src/reference/model.ts) against PyTorch goldens made by
// scripts/make_goldens.py: a tiny random Qwen2 with GQA, q/k/v biases and tied embeddings, with
// and without a PEFT LoRA adapter, with f32 and NF4-roundtripped weights. Prints maxdiff of
// logits, logprobs and entropies per case, and checks greedy decoding token for token.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/model/hf-config';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { openWeights } from '../../../src/model/io/weights';
import { readJson } from '../../../src/model/io/source';
import { readPeftAdapter } from '../../../src/model/io/peft';
import { type LoraWeights, type ModelConfig, type TensorMap } from '../../../src/model/types';
import { nf4_roundtrip } from '../../../src/reference/nf4';
import { greedy_generate, model_forward, model_logprobs } from '../../../src/reference/model';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { nf4Weights } from '../../fixtures/goldens';

const DIR = join(__dirname, '../../fixtures/goldens');
const TOL = 1e-4;

interface GoldenCase {
  weights: 'f32' | 'nf4';
  adapter: boolean;
  ids: number[];
  T: number;
  f32_vs_f64_maxdiff: number;
  logits: number[];
  logprobs: number[];
  entropy: number[];
}
interface Goldens {
  magic: string;
  version: number;
  regenerate: string;
  nf4_sample: { tensor: string; n: number; dequant: number[] };
  greedy: { prompt: number[]; new_tokens: number[] };
  cases: GoldenCase[];
}

const goldens = JSON.parse(readFileSync(join(DIR, 'goldens.json'), 'utf8')) as Goldens;

describe('CPU reference model vs PyTorch goldens (tiny Qwen2)', () => {
  let cfg: ModelConfig;
  let weights: { f32: TensorMap; nf4: TensorMap };
  let lora: LoraWeights;

  beforeAll(async () => {
    const src = new NodeDirSource(join(DIR, 'tiny-qwen2'));
    cfg = parseModelConfig(await readJson(src, 'config.json'));
    const f32 = await (await openWeights(src)).readAll();
    weights = { f32, nf4: nf4Weights(cfg, f32) };
    lora = await readPeftAdapter(new NodeDirSource(join(DIR, 'tiny-qwen2-lora')), cfg);
  });

  it('the fixture carries its magic, version and how to regenerate it', () => {
    expect(goldens.magic).toBe('rlstudio-goldens');
    expect(goldens.version).toBe(1);
    expect(goldens.regenerate).toContain('make_goldens.py');
    expect(cfg.architecture).toBe('qwen2');
    expect(cfg.numKvHeads).toBeLessThan(cfg.numHeads);
    expect(lora.pairs.size).toBe(cfg.numLayers * 7);
  });

  it('nf4_roundtrip reproduces the script\'s NF4 dequantisation', () => {
    const s = goldens.nf4_sample;
    const w = weights.f32.get(s.tensor);
    if (!w) throw new Error(`missing ${s.tensor}`);
    const d = maxAbsDiff(nf4_roundtrip(w.data, 64).subarray(0, s.n), s.dequant);
    console.log(`nf4 sample ${s.tensor}[0:${s.n}] maxdiff=${d.toExponential(2)}`);
    expect(d).toBeLessThan(1e-6);
  });

  for (const c of goldens.cases) {
    it(`${c.weights} adapter=${c.adapter ? 'on' : 'off'} T=${c.T}: logits, logprobs, entropy within ${TOL}`, () => {
      const w = weights[c.weights];
      const a = c.adapter ? lora : null;
      const logits = model_forward(cfg, w, c.ids, a);
      const { logprobs, entropy } = model_logprobs(cfg, w, c.ids, a);
      const dl = maxAbsDiff(logits, c.logits), dp = maxAbsDiff(logprobs, c.logprobs), de = maxAbsDiff(entropy, c.entropy);
      console.log(`${c.weights} adapter=${c.adapter ? 'on ' : 'off'} T=${String(c.T).padStart(2)} logits maxdiff=${dl.toExponential(2)} ` +
        `logprobs maxdiff=${dp.toExponential(2)} entropy maxdiff=${de.toExponential(2)} (torch f32 vs f64: ${c.f32_vs_f64_maxdiff.toExponential(2)})`);
      expect(dl).toBeLessThan(TOL);
      expect(dp).toBeLessThan(TOL);
      expect(de).toBeLessThan(TOL);
    });
  }

  it('the adapter and NF4 really change the output (the goldens are not trivially equal)', () => {
    const ids = goldens.cases[0].ids;
    const off = model_forward(cfg, weights.f32, ids, null);
    const dOn = maxAbsDiff(off, model_forward(cfg, weights.f32, ids, lora));
    const dNf4 = maxAbsDiff(off, model_forward(cfg, weights.nf4, ids, null));
    console.log(`adapter effect maxdiff=${dOn.toExponential(2)}, nf4 effect maxdiff=${dNf4.toExponential(2)}`);
    expect(dOn).toBeGreaterThan(0.1);
    expect(dNf4).toBeGreaterThan(0.01);
  });

  it('greedy_generate reproduces PyTorch argmax decoding token for token', () => {
    const g = goldens.greedy;
    const got = greedy_generate(cfg, weights.f32, g.prompt, g.new_tokens.length, []);
    console.log(`greedy ${JSON.stringify(got)} vs torch ${JSON.stringify(g.new_tokens)}`);
    expect(got).toEqual(g.new_tokens);
    // a stop id ends generation and is returned as the last token
    const stop = g.new_tokens[2];
    expect(greedy_generate(cfg, weights.f32, g.prompt, 50, [stop])).toEqual(g.new_tokens.slice(0, g.new_tokens.indexOf(stop) + 1));
  });

  it('model_forward is causal through the whole stack: a prefix gives the first rows of the full pass', () => {
    const ids = goldens.cases[2].ids;
    const full = model_forward(cfg, weights.f32, ids, null);
    const V = cfg.vocabSize;
    const prefix = model_forward(cfg, weights.f32, ids.slice(0, 6), null);
    const d = maxAbsDiff(prefix, full.subarray(0, 6 * V));
    console.log(`prefix vs full forward maxdiff=${d.toExponential(2)}`);
    expect(d).toBeLessThan(1e-5);
  });
});
