// Speed of one engine on one model, measured the same way for ours and onnxruntime-web: prefill
// (one pass over a prompt of T tokens) and decode (greedy tokens one at a time through the KV
// cache), in tokens per second. Used by scripts/bench-interop.ts (Node) and
// src/harness/ort.harness.ts (Chromium); prints nothing itself and asserts nothing.
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuModel } from '../model/gpu/model';
import { DecodeSession } from '../model/gpu/session';
import type { OrtDecoder } from './decoder';

export interface PhaseSpeed {
  prefillTokensPerSecond: number;
  decodeTokensPerSecond: number;
}

const GREEDY = { temperature: 0, topK: 0, topP: 1, seed: 0 };

/** Our engine: prefill = the prompt in one step of a DecodeSession, decode = `n` more steps. */
export async function benchOurs(rt: GpuRuntime, model: GpuModel, prompt: number[], n: number): Promise<PhaseSpeed> {
  const session = new DecodeSession(rt, model, 1, prompt.length + n + 1);
  try {
    await session.step([prompt.slice(0, 2)], { ...GREEDY, step: 0 }); // warm-up: pipelines, buffers
    session.reset(0);
    const t0 = performance.now();
    let r = await session.step([prompt], { ...GREEDY, step: 0 });
    const t1 = performance.now();
    for (let i = 0; i < n; i++) r = await session.step([[r.ids[0]]], { ...GREEDY, step: i + 1 });
    const t2 = performance.now();
    return { prefillTokensPerSecond: prompt.length / ((t1 - t0) / 1000), decodeTokensPerSecond: n / ((t2 - t1) / 1000) };
  } finally {
    session.free();
  }
}

/** onnxruntime-web: prefill = one run over the prompt, decode = `n` single-token runs. */
export async function benchOrt(ort: OrtDecoder, prompt: number[], n: number): Promise<PhaseSpeed> {
  await ort.logprobs(prompt.slice(0, 3), 2); // warm-up: both shapes (prefill, decode)
  ort.reset();
  const t0 = performance.now();
  await ort.step(prompt);
  const t1 = performance.now();
  for (let i = 0; i < n; i++) await ort.step([prompt[i % prompt.length]]);
  const t2 = performance.now();
  ort.reset();
  return { prefillTokensPerSecond: prompt.length / ((t1 - t0) / 1000), decodeTokensPerSecond: n / ((t2 - t1) / 1000) };
}
