// CPU reference for token sampling, the twin of shaders/sampling.wgsl: the same distribution
// rules (temperature, top-k and top-p thresholds with ties kept) and the same counter-based
// PCG hash and Gumbel-max draw, so the GPU and the CPU pick the same token for the same seed.
// Plain loops and a sort. Exercised by tests/unit/gpu/sampling-kernel.test.ts.

// B = rows, V = vocab size; logits [B, V] -> ids [B], logprobs [B]
export interface SamplingParams {
  /** 0: greedy (argmax, first index on ties). */
  temperature: number;
  /** Keep the tokens whose scaled logit is >= the k-th largest (ties kept); 0 or >= V: all. */
  topK: number;
  /** Then keep the smallest top set holding >= topP of the top-k mass (ties kept); 1: all. */
  topP: number;
  /** RNG seed (u32). */
  seed: number;
  /** RNG counter, e.g. the decode step (u32). */
  step: number;
  /**
   * Per row of the draw, the noise stream and position it draws at (DecodeSession: the slot's
   * stream and the index its sampled token takes). Absent: stream = the row, position = step.
   */
  keys?: RowKeys;
}

/** Per-row noise keys of a draw: integers in [0, ROW_KEY_LIMIT). */
export interface RowKeys {
  streams: ArrayLike<number>;
  positions: ArrayLike<number>;
}

/** Streams and positions stay below 2^24: the kernels read them as exact f32 integers. */
export const ROW_KEY_LIMIT = 2 ** 24;

/** The (stream, position) row r of a draw draws its noise from. */
export function rowNoiseKey(params: SamplingParams, r: number): [number, number] {
  const k = params.keys;
  return k ? [k.streams[r], k.positions[r]] : [r, params.step];
}

/**
 * The draw's keys as the kernels read them: [2B] f32, (stream, position) per row. Throws, naming
 * the row, for a key that is not an integer in [0, ROW_KEY_LIMIT) or rows missing.
 */
export function rowKeyPairs(keys: RowKeys, B: number): Float32Array {
  if (keys.streams.length < B || keys.positions.length < B) {
    throw new Error(`sampling keys: ${keys.streams.length} streams and ${keys.positions.length} positions for a draw of ${B} rows; give one of each per row`);
  }
  const out = new Float32Array(Math.max(2, 2 * B));
  for (let r = 0; r < B; r++) {
    for (const [i, name, v] of [[0, 'stream', keys.streams[r]], [1, 'position', keys.positions[r]]] as const) {
      if (!Number.isInteger(v) || v < 0 || v >= ROW_KEY_LIMIT) throw new Error(`sampling keys: row ${r}'s ${name} is ${v}; it must be an integer in [0, 2^24)`);
      out[2 * r + i] = v;
    }
  }
  return out;
}

/** PCG hash (Jarzynski and Olano 2020) on u32, as in the shader. */
export function pcg_hash(v: number): number {
  const state = (Math.imul(v >>> 0, 747796405) + 2891336453) >>> 0;
  const word = Math.imul(((state >>> ((state >>> 28) + 4)) ^ state) >>> 0, 277803737) >>> 0;
  return ((word >>> 22) ^ word) >>> 0;
}

/** The largest f32 below 1: the sampler's uniforms stay under it. */
const U_MAX = 1 - 2 ** -24;

/**
 * The uniform in (0, 1) the sampler draws for (seed, row, step, token) (keyed: stream for row,
 * position for step): 24 hash bits + 0.5, added
 * in f32 as the shader does (rounded to even above 2^23), capped at U_MAX (in f32, 2^24 - 0.5
 * rounds up to 2^24, i.e. u = 1 and infinite noise).
 */
export function sample_uniform(seed: number, row: number, step: number, token: number): number {
  const rk = pcg_hash((pcg_hash((pcg_hash(seed) ^ row) >>> 0) ^ step) >>> 0);
  return Math.min(Math.fround((pcg_hash((rk ^ pcg_hash(token)) >>> 0) >>> 8) + 0.5) / 16777216, U_MAX);
}

/**
 * Samples one token per row. The log-prob returned is log softmax(z)[id] over the full
 * vocabulary with z = logits / T (T = 1 when greedy), before top-k/top-p truncation.
 */
export function sample_forward(logits: Float32Array, B: number, V: number, params: SamplingParams): { ids: Uint32Array; logprobs: Float32Array } {
  if (logits.length !== B * V) throw new Error(`sample_forward: logits has ${logits.length} values, expected [B, V] = [${B}, ${V}]`);
  const greedy = params.temperature <= 0;
  const invT = greedy ? 1 : Math.fround(1 / params.temperature);
  const ids = new Uint32Array(B);
  const logprobs = new Float32Array(B);
  const z = new Float32Array(V);
  if (params.keys) rowKeyPairs(params.keys, B); // checks them as the GPU launchers do
  for (let r = 0; r < B; r++) {
    const [stream, position] = rowNoiseKey(params, r);
    let zmax = -Infinity, best = 0;
    for (let i = 0; i < V; i++) {
      z[i] = Math.fround(logits[r * V + i] * invT);
      if (z[i] > zmax) { zmax = z[i]; best = i; }
    }
    let sum = 0;
    for (let i = 0; i < V; i++) sum += Math.exp(z[i] - zmax);
    const logZ = zmax + Math.log(sum);
    let id = best;
    if (!greedy) {
      const tau = threshold(z, params.topK, params.topP, zmax);
      let g = -Infinity;
      for (let i = 0; i < V; i++) {
        if (z[i] < tau) continue;
        const v = z[i] - Math.log(-Math.log(sample_uniform(params.seed, stream, position, i)));
        if (v > g) { g = v; id = i; }
      }
    }
    ids[r] = id;
    logprobs[r] = z[id] - logZ;
  }
  return { ids, logprobs };
}

/** The smallest scaled logit kept by top-k then top-p (every z >= it is kept). */
export function threshold(z: Float32Array, topK: number, topP: number, zmax: number): number {
  const sorted = Float32Array.from(z).sort().reverse();
  let tau = sorted[sorted.length - 1];
  if (topK > 0 && topK < z.length) tau = sorted[topK - 1];
  if (topP < 1) {
    let kept = 0;
    for (const x of sorted) if (x >= tau) kept += Math.exp(x - zmax);
    const target = topP * kept;
    let mass = 0;
    for (let i = 0; i < sorted.length; i++) {
      mass += Math.exp(sorted[i] - zmax);
      // Ties are kept together: only stop after the last copy of a value.
      if (mass >= target && (i + 1 === sorted.length || sorted[i + 1] < sorted[i])) return Math.max(tau, sorted[i]);
    }
  }
  return tau;
}
