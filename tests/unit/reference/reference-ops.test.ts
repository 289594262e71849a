// Sanity tests of the CPU reference ops (src/reference/*.ts) from properties that need no
// second implementation: constant rows, one-key attention, rope at position 0, normalised
// log probabilities, GQA against per-head attention. Prints maxdiff for each numeric check.
import { describe, expect, it } from 'vitest';
import { randomArray } from '../../../src/gpu/selftest';
import { maxAbsDiff, matmul_forward } from '../../../src/reference/matmul';
import { embedding_forward } from '../../../src/reference/embedding';
import { rmsnorm_forward } from '../../../src/reference/rmsnorm';
import { linear_forward, lora_forward } from '../../../src/reference/linear';
import { swiglu_forward } from '../../../src/reference/swiglu';
import { rope_forward } from '../../../src/reference/rope';
import { attention_forward } from '../../../src/reference/attention';
import { logprobs_forward } from '../../../src/reference/logprobs';

const report = (what: string, d: number) => console.log(`${what} maxdiff=${d.toExponential(2)}`);

describe('embedding_forward', () => {
  it('gathers rows and rejects ids outside the vocabulary', () => {
    const V = 5, C = 3;
    const wte = Float32Array.from({ length: V * C }, (_, i) => i);
    expect(Array.from(embedding_forward(wte, [4, 0, 4], C))).toEqual([12, 13, 14, 0, 1, 2, 12, 13, 14]);
    expect(() => embedding_forward(wte, [5], C)).toThrow(/outside/);
  });
});

describe('rmsnorm_forward', () => {
  it('maps a constant row to the weight (up to eps) and scales linearly with w', () => {
    const N = 3, C = 16, eps = 1e-6;
    const x = new Float32Array(N * C);
    for (let n = 0; n < N; n++) x.fill(n + 0.5, n * C, (n + 1) * C);
    const w = randomArray(C, 3);
    const y = rmsnorm_forward(x, w, N, C, eps);
    const expected = new Float32Array(N * C).map((_, i) => w[i % C]);
    const d = maxAbsDiff(y, expected);
    report('rmsnorm constant row', d);
    expect(d).toBeLessThan(1e-5);
  });

  it('output rows have unit RMS when w = 1', () => {
    const N = 4, C = 32;
    const y = rmsnorm_forward(randomArray(N * C, 9), new Float32Array(C).fill(1), N, C, 0);
    const rms = Array.from({ length: N }, (_, n) => Math.sqrt(y.subarray(n * C, (n + 1) * C).reduce((s, v) => s + v * v, 0) / C));
    const d = maxAbsDiff(rms, new Array<number>(N).fill(1));
    report('rmsnorm unit rms', d);
    expect(d).toBeLessThan(1e-6);
  });
});

describe('linear_forward / lora_forward', () => {
  it('adds the bias to every row of X W^T', () => {
    const M = 3, K = 7, N = 5;
    const X = randomArray(M * K, 1), W = randomArray(N * K, 2), b = randomArray(N, 3);
    const Y = linear_forward(X, W, b, M, K, N), Y0 = matmul_forward(X, W, M, K, N);
    const d = maxAbsDiff(Y, Y0.map((v, i) => v + b[i % N]));
    report('linear bias', d);
    expect(d).toBeLessThan(1e-6);
    expect(() => linear_forward(X, W, b, M, K, N + 1)).toThrow(/linear_forward/);
  });

  it('the LoRA delta equals X (scale * B A)^T, the merged-weight form', () => {
    const M = 4, K = 12, N = 10, R = 3, scale = 2.5;
    const X = randomArray(M * K, 4), A = randomArray(R * K, 5), B = randomArray(N * R, 6);
    // merged delta weight [N, K] = scale * B [N, R] . A [R, K]
    const dW = new Float32Array(N * K);
    for (let n = 0; n < N; n++) for (let k = 0; k < K; k++) {
      let s = 0;
      for (let r = 0; r < R; r++) s += B[n * R + r] * A[r * K + k];
      dW[n * K + k] = scale * s;
    }
    const d = maxAbsDiff(lora_forward(X, A, B, scale, M, K, N, R), matmul_forward(X, dW, M, K, N));
    report('lora vs merged weight', d);
    expect(d).toBeLessThan(1e-5);
  });
});

describe('swiglu_forward', () => {
  it('is zero at gate 0, about up * gate for large gate, and silu(1) = 1/(1+e^-1)', () => {
    const gate = Float32Array.from([0, 20, 1, -30]), up = Float32Array.from([3, 2, 1, 5]);
    const y = swiglu_forward(gate, up);
    const d = maxAbsDiff(y, [0, 40, 1 / (1 + Math.exp(-1)), 0]);
    report('swiglu known values', d);
    expect(d).toBeLessThan(1e-5);
  });
});

describe('rope_forward', () => {
  const N = 4, H = 3, HS = 8, theta = 10000;
  const x = randomArray(N * H * HS, 11);

  it('is the identity at position 0', () => {
    const d = maxAbsDiff(rope_forward(x, [0, 0, 0, 0], N, H, HS, theta), x);
    report('rope pos 0', d);
    expect(d).toBe(0);
  });

  it('preserves the norm of every (i, i + HS/2) pair', () => {
    const y = rope_forward(x, [1, 5, 17, 300], N, H, HS, theta);
    const pairNorms = (a: Float32Array) => {
      const out: number[] = [];
      for (let r = 0; r < N * H; r++) for (let i = 0; i < HS / 2; i++) out.push(Math.hypot(a[r * HS + i], a[r * HS + i + HS / 2]));
      return out;
    };
    const d = maxAbsDiff(pairNorms(y), pairNorms(x));
    report('rope pair norms', d);
    expect(d).toBeLessThan(1e-6);
  });

  it('makes q.k depend only on the position difference', () => {
    const q = randomArray(HS, 21), k = randomArray(HS, 22);
    const dot = (pq: number, pk: number) => {
      const rq = rope_forward(q, [pq], 1, 1, HS, theta), rk = rope_forward(k, [pk], 1, 1, HS, theta);
      return rq.reduce((s, v, i) => s + v * rk[i], 0);
    };
    const d = Math.abs(dot(7, 3) - dot(104, 100));
    report('rope relative position', d);
    expect(d).toBeLessThan(1e-5);
  });

  it('rotates pair 0 by exactly pos radians', () => {
    const v = new Float32Array(HS); v[0] = 1;
    const y = rope_forward(v, [2], 1, 1, HS, theta);
    const d = maxAbsDiff([y[0], y[HS / 2]], [Math.cos(2), Math.sin(2)]);
    report('rope pair 0 angle', d);
    expect(d).toBeLessThan(1e-6);
  });
});

describe('attention_forward', () => {
  it('with one key returns v', () => {
    const NH = 4, KVH = 2, HS = 8;
    const q = randomArray(NH * HS, 1), k = randomArray(KVH * HS, 2), v = randomArray(KVH * HS, 3);
    const out = attention_forward(q, k, v, 1, 1, NH, KVH, HS, 0);
    const expected = new Float32Array(NH * HS).map((_, i) => v[Math.floor(Math.floor(i / HS) / 2) * HS + (i % HS)]);
    const d = maxAbsDiff(out, expected);
    report('attention one key', d);
    expect(d).toBeLessThan(1e-7);
  });

  it('GQA equals per-head attention with the kv heads repeated (KVH = NH)', () => {
    const T = 6, NH = 4, KVH = 2, HS = 8;
    const q = randomArray(T * NH * HS, 4), k = randomArray(T * KVH * HS, 5), v = randomArray(T * KVH * HS, 6);
    const rep = (a: Float32Array) => {
      const out = new Float32Array(T * NH * HS);
      for (let t = 0; t < T; t++) for (let h = 0; h < NH; h++) out.set(a.subarray((t * KVH + Math.floor(h / 2)) * HS, (t * KVH + Math.floor(h / 2) + 1) * HS), (t * NH + h) * HS);
      return out;
    };
    const d = maxAbsDiff(attention_forward(q, k, v, T, T, NH, KVH, HS, 0), attention_forward(q, rep(k), rep(v), T, T, NH, NH, HS, 0));
    report('attention GQA vs repeated kv', d);
    expect(d).toBe(0);
  });

  it('is causal: a chunk at qPos0 equals the matching rows of the full pass, and future keys do not matter', () => {
    const T = 7, NH = 2, KVH = 1, HS = 4, split = 4;
    const q = randomArray(T * NH * HS, 7), k = randomArray(T * KVH * HS, 8), v = randomArray(T * KVH * HS, 9);
    const full = attention_forward(q, k, v, T, T, NH, KVH, HS, 0);
    const tail = attention_forward(q.subarray(split * NH * HS), k, v, T - split, T, NH, KVH, HS, split);
    const d1 = maxAbsDiff(tail, full.subarray(split * NH * HS));
    const k2 = k.slice(); k2.fill(9, split * KVH * HS);
    const head = attention_forward(q.subarray(0, split * NH * HS), k2, v, split, T, NH, KVH, HS, 0);
    const d2 = maxAbsDiff(head, full.subarray(0, split * NH * HS));
    report('attention chunk vs full', d1);
    report('attention future keys changed', d2);
    expect(d1).toBe(0);
    expect(d2).toBe(0);
  });

  it('with equal keys averages the visible values', () => {
    const T = 3, HS = 2;
    const q = randomArray(T * HS, 10), k = new Float32Array(T * HS).fill(0.3);
    const v = Float32Array.from([1, 2, 3, 4, 5, 6]);
    const d = maxAbsDiff(attention_forward(q, k, v, T, T, 1, 1, HS, 0), [1, 2, 2, 3, 3, 4]);
    report('attention uniform average', d);
    expect(d).toBeLessThan(1e-6);
  });
});

describe('logprobs_forward', () => {
  it('rows logsumexp to 0, entropy of uniform is log V, entropy of a peak is about 0', () => {
    const N = 3, V = 50;
    const logits = randomArray(N * V, 12).map((v) => v * 5);
    logits.fill(0, V, 2 * V); // row 1 uniform
    logits.fill(-1e4, 2 * V, 3 * V); logits[2 * V + 7] = 1e4; // row 2 one-hot
    let worst = 0;
    for (let n = 0; n < N; n++) {
      let s = 0;
      for (let t = 0; t < V; t++) s += Math.exp(logprobs_forward(logits.subarray(n * V, (n + 1) * V), [t], 1, V).logprobs[0]);
      worst = Math.max(worst, Math.abs(Math.log(s)));
    }
    report('logprobs logsumexp', worst);
    expect(worst).toBeLessThan(1e-6);
    const { logprobs, entropy } = logprobs_forward(logits, [0, 3, 7], N, V);
    const d = maxAbsDiff([logprobs[1], entropy[1], logprobs[2], entropy[2]], [-Math.log(V), Math.log(V), 0, 0]);
    report('logprobs uniform / one-hot', d);
    expect(d).toBeLessThan(1e-6);
  });
});
