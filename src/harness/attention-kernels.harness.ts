// Harness functions for the attention-side kernels (qkv_rope, attention in both variants, the
// training attention's backward (attention-backward-check.ts), chunked log-probs, sampling with
// and without top-k / top-p) run in the browser against their CPU twins, on small shapes.
// Used by tests/e2e/attention-kernels.spec.ts; the same checks run in Node in
// tests/unit/gpu/{attention,rope,logprobs}-forward.test.ts and sampling-kernel.test.ts.
import type { Harness } from './types';
import { getBrowserGpu } from '../gpu/browser-gpu';
import { GpuRuntime } from '../gpu/runtime';
import { KvCache } from '../gpu/kv-cache';
import { QkvRope } from '../gpu/kernels/rope';
import { Attention, ATTENTION_VARIANTS } from '../gpu/kernels/attention';
import { ChunkedLogprobs, f32LmHead } from '../gpu/kernels/logprobs';
import { Matmul } from '../gpu/kernels/matmul';
import { Sampler, samplerOutBytes } from '../gpu/kernels/sampling';
import { randomArray } from '../gpu/selftest';
import { rope_forward } from '../reference/rope';
import { attention_forward } from '../reference/attention';
import { logprobs_forward } from '../reference/logprobs';
import { matmul_forward, maxAbsDiff } from '../reference/matmul';
import { sample_forward } from '../reference/sampling';
import { checkAttentionBackward } from './attention-backward-check';

export interface AttentionKernelsReport {
  adapter: string;
  attention: Record<string, number>;
  /** dQ, dK, dV maxdiff per head size and backward form ('64 tiled-scores', '32 tiled', ...). */
  backward: Record<string, number>;
  logprobs: number;
  entropy: number;
  samplingIdsEqual: boolean;
  samplingLogprobDiff: number;
}

let rt: Promise<GpuRuntime> | undefined;

function columns(x: Float32Array, M: number, F: number, c0: number, w: number): Float32Array {
  const out = new Float32Array(M * w);
  for (let m = 0; m < M; m++) out.set(x.subarray(m * F + c0, m * F + c0 + w), m * w);
  return out;
}

/** One prefill of a single sequence (T = 9) through qkv_rope + attention; maxdiff per variant. */
async function checkAttention(r: GpuRuntime): Promise<Record<string, number>> {
  const NH = 4, KVH = 2, HS = 16, T = 9, F = (NH + 2 * KVH) * HS, theta = 10000;
  const out: Record<string, number> = {};
  for (const variant of ATTENTION_VARIANTS) {
    const cache = new KvCache(r, { numLayers: 1, B: 1, KVH, HS, Tmax: 16 });
    const rope = await QkvRope.create(r, { NH, KVH, HS, theta, Tmax: 16 });
    const attn = await Attention.create(r, { NH, KVH, HS, variant });
    const step = cache.append([T]);
    const QKV = randomArray(T * F, 31);
    const qkvb = r.upload(QKV, 'QKV'), rows = r.upload(step.rows, 'rows');
    const qb = r.storage(T * NH * HS * 4, 'Q'), ob = r.storage(T * NH * HS * 4, 'O');
    rope.run(qkvb, rows, qb, cache, 0, T);
    attn.run(qb, rows, cache, 0, ob, T);
    const got = await r.readF32(ob, T * NH * HS);
    const pos = Array.from({ length: T }, (_, i) => i);
    const q = rope_forward(columns(QKV, T, F, 0, NH * HS), pos, T, NH, HS, theta);
    const k = rope_forward(columns(QKV, T, F, NH * HS, KVH * HS), pos, T, KVH, HS, theta);
    const v = columns(QKV, T, F, (NH + KVH) * HS, KVH * HS);
    out[variant] = maxAbsDiff(got, attention_forward(q, k, v, T, T, NH, KVH, HS, 0));
    r.release(qkvb, rows, qb, ob);
    rope.destroy();
    cache.free();
  }
  return out;
}

export function register(h: Harness): void {
  h.attentionKernelsCheck = async (): Promise<AttentionKernelsReport> => {
    rt ??= GpuRuntime.create(getBrowserGpu());
    const r = await rt;
    const attention = await checkAttention(r);
    const backward = await checkAttentionBackward(r);

    const M = 20, C = 16, V = 203;
    const H = randomArray(M * C, 41), W = randomArray(V * C, 42);
    const targets = Uint32Array.from({ length: M }, (_, i) => (i * 37) % V);
    const mm = await Matmul.create(r, { variant: 'rb' });
    const lp = await ChunkedLogprobs.create(r, { V, C, chunkRows: 8 });
    const hb = r.upload(H, 'H'), wb = r.upload(W, 'W'), tb = r.upload(targets, 'targets');
    const lpb = r.storage(M * 4, 'logp'), eb = r.storage(M * 4, 'entropy');
    lp.run(hb, tb, M, lpb, eb, f32LmHead(mm, wb, C, V));
    const ref = logprobs_forward(matmul_forward(H, W, M, C, V), targets, M, V);
    const logprobs = maxAbsDiff(await r.readF32(lpb, M), ref.logprobs);
    const entropy = maxAbsDiff(await r.readF32(eb, M), ref.entropy);
    r.release(hb, wb, tb, lpb, eb);
    lp.destroy();

    // Top-k / top-p (one workgroup per row), then plain temperature and greedy (in chunks of 64).
    const B = 8;
    const logits = randomArray(B * V, 43).map((x) => 6 * x);
    const sampler = await Sampler.create(r, { V, chunk: 64 });
    const lb = r.upload(logits, 'logits'), ob = r.storage(samplerOutBytes(B), 'samples');
    let samplingIdsEqual = true, samplingLogprobDiff = 0;
    for (const params of [{ temperature: 0.8, topK: 40, topP: 0.9, seed: 5, step: 3 }, { temperature: 0.8, topK: 0, topP: 1, seed: 5, step: 3 }, { temperature: 0, topK: 0, topP: 1, seed: 5, step: 3 }]) {
      sampler.run(lb, B, ob, params);
      const got = await sampler.read(ob, B);
      const want = sample_forward(logits, B, V, params);
      samplingIdsEqual &&= got.ids.every((id, i) => id === want.ids[i]);
      samplingLogprobDiff = Math.max(samplingLogprobDiff, maxAbsDiff(got.logprobs, want.logprobs));
    }
    r.release(lb, ob);
    sampler.destroy();
    return {
      adapter: `${r.report.vendor} ${r.report.architecture}`,
      attention,
      backward,
      logprobs,
      entropy,
      samplingIdsEqual,
      samplingLogprobDiff,
    };
  };
}
