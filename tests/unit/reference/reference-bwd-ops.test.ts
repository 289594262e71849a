// Finite-difference checks of every op backward in src/reference/ (matmul, linear, LoRA, rmsnorm,
// swiglu, rope, attention, logprobs with entropy, embedding) on tiny dimensions, plus their write
// contract: parameter gradients accumulate (+=), activation gradients are fresh arrays.
// Each check prints the max error relative to the gradient's scale.
import { describe, expect, it } from 'vitest';
import { randomArray } from '../../../src/gpu/selftest';
import { matmul_backward, matmul_forward } from '../../../src/reference/matmul';
import { linear_backward, linear_forward, lora_backward, lora_forward } from '../../../src/reference/linear';
import { rmsnorm_backward, rmsnorm_forward } from '../../../src/reference/rmsnorm';
import { swiglu_backward, swiglu_forward } from '../../../src/reference/swiglu';
import { rope_backward, rope_forward } from '../../../src/reference/rope';
import { attention_backward, attention_forward } from '../../../src/reference/attention';
import { logprobs_backward, logprobs_forward } from '../../../src/reference/logprobs';
import { embedding_backward, embedding_forward } from '../../../src/reference/embedding';
import { dot, fdGrad, maxAbs, relErr } from '../helpers/reference-bwd-fd';

// f32 forwards with f64 accumulation; the 4-point stencil leaves about 1e-5 of rounding noise.
const TOL = 3e-4;

function check(what: string, analytic: ArrayLike<number>, fd: ArrayLike<number>): void {
  const e = relErr(analytic, fd);
  console.log(`${what}: max rel err=${e.toExponential(2)} (scale ${maxAbs(fd).toExponential(2)})`);
  expect(maxAbs(fd)).toBeGreaterThan(1e-3);
  expect(e).toBeLessThan(TOL);
}

const ones = (n: number) => new Float32Array(n).fill(1);
const minus1 = (a: Float32Array) => a.map((x) => x - 1);

describe('matmul_backward / linear_backward / lora_backward', () => {
  it('matmul: dX and dW match finite differences; dW accumulates', () => {
    const M = 3, K = 5, N = 4;
    const X = randomArray(M * K, 1), W = randomArray(N * K, 2), G = randomArray(M * N, 3);
    const dW = ones(N * K);
    const dX = matmul_backward(G, X, W, M, K, N, dW);
    const f = () => dot(matmul_forward(X, W, M, K, N), G);
    check('matmul dX', dX, fdGrad(X, f));
    check('matmul dW (+= onto ones)', minus1(dW), fdGrad(W, f));
  });

  it('linear with bias: dX, dW, dbias', () => {
    const M = 4, K = 6, N = 3;
    const X = randomArray(M * K, 4), W = randomArray(N * K, 5), b = randomArray(N, 6), G = randomArray(M * N, 7);
    const dW = new Float32Array(N * K), db = new Float32Array(N);
    const dX = linear_backward(G, X, W, b, M, K, N, dW, db);
    const f = () => dot(linear_forward(X, W, b, M, K, N), G);
    check('linear dX', dX, fdGrad(X, f));
    check('linear dW', dW, fdGrad(W, f));
    check('linear dbias', db, fdGrad(b, f));
    expect(() => linear_backward(G, X, W, null, M, K, N, null, db)).toThrow(/dbias/);
  });

  it('lora: dX, dA, dB (scale 2.5); frozen A or B leaves it untouched', () => {
    const M = 3, K = 7, N = 5, R = 2, scale = 2.5;
    const X = randomArray(M * K, 8), A = randomArray(R * K, 9), B = randomArray(N * R, 10), G = randomArray(M * N, 11);
    const dA = ones(R * K), dB = ones(N * R);
    const dX = lora_backward(G, X, A, B, scale, M, K, N, R, dA, dB);
    const f = () => dot(lora_forward(X, A, B, scale, M, K, N, R), G);
    check('lora dX', dX, fdGrad(X, f));
    check('lora dA (+=)', minus1(dA), fdGrad(A, f));
    check('lora dB (+=)', minus1(dB), fdGrad(B, f));
    const dX2 = lora_backward(G, X, A, B, scale, M, K, N, R, null, null);
    expect(Array.from(dX2)).toEqual(Array.from(dX));
  });
});

describe('rmsnorm_backward / swiglu_backward / rope_backward', () => {
  it('rmsnorm: dx and dw', () => {
    const N = 3, C = 8, eps = 1e-5;
    const x = randomArray(N * C, 12), w = randomArray(C, 13).map((v) => 1 + 0.3 * v), G = randomArray(N * C, 14);
    const dw = ones(C);
    const dx = rmsnorm_backward(G, x, w, N, C, eps, dw);
    const f = () => dot(rmsnorm_forward(x, w, N, C, eps), G);
    check('rmsnorm dx', dx, fdGrad(x, f, 1e-3));
    check('rmsnorm dw (+=)', minus1(dw), fdGrad(w, f));
  });

  it('swiglu: dgate and dup', () => {
    const n = 12;
    const g = randomArray(n, 15).map((v) => 3 * v), u = randomArray(n, 16), G = randomArray(n, 17);
    const { dgate, dup } = swiglu_backward(G, g, u);
    const f = () => dot(swiglu_forward(g, u), G);
    check('swiglu dgate', dgate, fdGrad(g, f));
    check('swiglu dup', dup, fdGrad(u, f));
  });

  it('rope: dx at positions 0, 3, 17 (theta 1e4)', () => {
    const N = 3, H = 2, HS = 8, theta = 10000, pos = [0, 3, 17];
    const x = randomArray(N * H * HS, 18), G = randomArray(N * H * HS, 19);
    const dx = rope_backward(G, pos, N, H, HS, theta);
    check('rope dx', dx, fdGrad(x, () => dot(rope_forward(x, pos, N, H, HS, theta), G)));
  });
});

describe('attention_backward', () => {
  for (const c of [
    { name: 'full causal pass, GQA 4/2', Tq: 4, Tk: 4, NH: 4, KVH: 2, qPos0: 0 },
    { name: 'chunk at qPos0 = 2 over 5 keys, MHA', Tq: 3, Tk: 5, NH: 2, KVH: 2, qPos0: 2 },
    { name: 'two queries at qPos0 = 0 over 5 keys (keys 2..4 unseen)', Tq: 2, Tk: 5, NH: 2, KVH: 1, qPos0: 0 },
  ]) {
    it(`${c.name}: dq, dk, dv`, () => {
      const HS = 4, { Tq, Tk, NH, KVH, qPos0 } = c;
      const q = randomArray(Tq * NH * HS, 20).map((v) => 2 * v), k = randomArray(Tk * KVH * HS, 21).map((v) => 2 * v);
      const v = randomArray(Tk * KVH * HS, 22), G = randomArray(Tq * NH * HS, 23);
      const { dq, dk, dv } = attention_backward(G, q, k, v, Tq, Tk, NH, KVH, HS, qPos0);
      const f = () => dot(attention_forward(q, k, v, Tq, Tk, NH, KVH, HS, qPos0), G);
      check('attention dq', dq, fdGrad(q, f));
      check('attention dk', dk, fdGrad(k, f));
      check('attention dv', dv, fdGrad(v, f));
      const seen = Math.min(Tk, qPos0 + Tq) * KVH * HS;
      expect(maxAbs(dk.subarray(seen))).toBe(0);
      expect(maxAbs(dv.subarray(seen))).toBe(0);
    });
  }
});

describe('logprobs_backward', () => {
  it('dlogits from dlogp alone, from dentropy alone, and from both', () => {
    const N = 3, V = 7, targets = [2, 6, 0];
    const logits = randomArray(N * V, 24).map((v) => 2 * v);
    const gl = randomArray(N, 25), ge = randomArray(N, 26);
    const zero = new Float32Array(N);
    const lossOf = (a: Float32Array, b: Float32Array) => () => {
      const r = logprobs_forward(logits, targets, N, V);
      return dot(r.logprobs, a) + dot(r.entropy, b);
    };
    check('logprobs dlogits (dlogp)', logprobs_backward(gl, null, logits, targets, N, V), fdGrad(logits, lossOf(gl, zero)));
    check('logprobs dlogits (dentropy)', logprobs_backward(zero, ge, logits, targets, N, V), fdGrad(logits, lossOf(zero, ge)));
    check('logprobs dlogits (both)', logprobs_backward(gl, ge, logits, targets, N, V), fdGrad(logits, lossOf(gl, ge)));
  });
});

describe('embedding_backward', () => {
  it('scatter-adds into dwte (a repeated id gets both rows) and accumulates', () => {
    const V = 6, C = 4, ids = [3, 1, 3, 5];
    const wte = randomArray(V * C, 27), G = randomArray(ids.length * C, 28);
    const dwte = ones(V * C);
    embedding_backward(G, wte, ids, C, dwte);
    check('embedding dwte (+=)', minus1(dwte), fdGrad(wte, () => dot(embedding_forward(wte, ids, C), G)));
    expect(() => embedding_backward(G, wte, [0, 1, 2, 6], C, dwte)).toThrow(/outside/);
  });
});
