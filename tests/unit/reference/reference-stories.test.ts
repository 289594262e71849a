// The CPU reference decoder on a real trained model: stories260K (llama2.c) read by
// src/model/io/llama2c.ts, greedy-decoded from BOS exactly as llama2.c's run.c does
// (`-t 0.0`, 256 steps, stop when BOS comes back), decoded with run.c's own rule, must equal the
// text documented in stories260K.md character for character.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readLlama2cCheckpoint } from '../../../src/model/io/llama2c';
import { parseLlama2cTokenizer } from '../../../src/model/tokenizer/llama2c';
import { llama2c_decode } from '../../../src/model/tokenizer/llama2c-reference';
import { greedy_generate, model_forward, model_logprobs } from '../../../src/reference/model';
import { greedySample, STORIES_DIR } from '../../fixtures/io/stories260k';

const BOS = 1;
const STEPS = 256; // run.c default: positions 0..255, one new token per position

describe.skipIf(!existsSync(STORIES_DIR))('reference decoder on stories260K', () => {
  const { config, tensors } = readLlama2cCheckpoint(new Uint8Array(readFileSync(`${STORIES_DIR}/stories260K.bin`)), 'stories260K.bin');
  const vocab = parseLlama2cTokenizer(new Uint8Array(readFileSync(`${STORIES_DIR}/tok512.bin`)), 'tok512.bin');

  it('greedy decoding from BOS reproduces run.c -t 0.0 exactly', () => {
    const t0 = performance.now();
    const ids = greedy_generate(config, tensors, [BOS], STEPS, [BOS]);
    const ms = performance.now() - t0;
    const stopped = ids[ids.length - 1] === BOS;
    const text = llama2c_decode(vocab, [BOS, ...ids]);
    const want = greedySample();
    const firstDiff = [...want].findIndex((c, i) => c !== text[i]);
    console.log(`stories260K reference greedy: ${ids.length} tokens${stopped ? ' (stopped at BOS)' : ''} in ${ms.toFixed(0)} ms, ` +
      `${text.length} chars, first difference at ${firstDiff} (-1 = none)`);
    expect(text).toBe(want);
  });

  it('KV-cache decoding agrees with full forward passes: each greedy token is the argmax of its row', () => {
    const ids = [BOS, ...greedy_generate(config, tensors, [BOS], 64, [BOS])];
    const V = config.vocabSize;
    const logits = model_forward(config, tensors, ids);
    let mismatches = 0, minGap = Infinity;
    for (let t = 0; t + 1 < ids.length; t++) {
      const row = logits.subarray(t * V, (t + 1) * V);
      const sorted = Array.from(row).sort((a, b) => b - a);
      minGap = Math.min(minGap, sorted[0] - sorted[1]);
      if (row[ids[t + 1]] !== sorted[0]) mismatches++;
    }
    const { logprobs, entropy } = model_logprobs(config, tensors, ids);
    const mean = (a: Float32Array) => a.reduce((x, y) => x + y, 0) / a.length;
    console.log(`stories260K 64 greedy tokens vs full pass: ${mismatches} argmax mismatches, smallest top-2 gap ${minGap.toFixed(4)}, ` +
      `mean logprob ${mean(logprobs).toFixed(3)}, mean entropy ${mean(entropy).toFixed(3)} (log V = ${Math.log(V).toFixed(3)})`);
    expect(mismatches).toBe(0);
  });
});
