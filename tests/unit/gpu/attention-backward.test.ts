// Attention backward (shaders/attention.wgsl attn_bwd_*, both variants) and the forward's LSE
// option, on Dawn, against attention_backward / attention_forward per sequence: packed sequences
// of different lengths, an unused slot, GQA and plain multi-head, HS 8..64 (the register forms at
// 8, 16 and 64, generic at 32), a sequence longer than one workgroup chunk. dK/dV start as
// garbage (full overwrite). Prints maxdiff per tensor.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { caseInputs, gpuGrads, referenceGrads, type AttnCase } from './backward-helpers';

const packedLen = (c: AttnCase) => c.lengths.reduce((a, b) => a + b, 0);
/** The AttentionBackward options of a gpuGrads form (without the forward's). */
const backwardOnly = (f: Parameters<typeof gpuGrads>[6] = {}) => {
  const { trainPositions: _t, sixteenMinRows: _s, keepScores: _k, starts: _st, poisonO: _p, ...b } = f;
  return b;
};
import { ATTENTION_VARIANTS, Attention, SIXTEEN_MIN_ROWS, TRAIN_REGISTER_HEAD_SIZES } from '../../../src/gpu/kernels/attention';
import { AttentionBackward, DQ8_HEAD_SIZES, FUSED_STORAGE_BUFFERS, attentionBackwardDispatches, PS_HEAD_SIZES, PS_MIN_ROWS, sequenceTable, tiledHeadSize } from '../../../src/gpu/kernels/attention-backward';
import { GpuRuntime } from '../../../src/gpu/runtime';
import { getNodeGpu } from '../../../src/gpu/node-gpu';
import { KvCache } from '../../../src/gpu/kv-cache';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { ShapeError } from '../../../src/gpu/errors';

const cases: (AttnCase & { name: string })[] = [
  { name: 'GQA packed 3+8+5', NH: 4, KVH: 2, HS: 16, lengths: [3, 8, 5], Tmax: 11, theta: 10000 },
  { name: 'MHA, unused slot', NH: 2, KVH: 2, HS: 8, lengths: [6, 0, 4], Tmax: 9, theta: 10000 },
  { name: 'GQA HS=8 (the _hs8 thread kernels)', NH: 4, KVH: 2, HS: 8, lengths: [5, 9], Tmax: 10, theta: 10000 },
  { name: 'HS=8, many key blocks', NH: 2, KVH: 1, HS: 8, lengths: [1, 37], Tmax: 38, theta: 10000 },
  { name: 'agent-tiny heads 4/2 HS=16 (the _hs16 thread kernels), odd lengths', NH: 4, KVH: 2, HS: 16, lengths: [13, 0, 6], Tmax: 14, theta: 10000 },
  { name: 'GQA HS=64', NH: 4, KVH: 2, HS: 64, lengths: [7, 2], Tmax: 8, theta: 1e6 },
  { name: 'Qwen heads 14/2', NH: 14, KVH: 2, HS: 64, lengths: [5, 3], Tmax: 6, theta: 1e6 },
  { name: 'long sequence, several chunks', NH: 2, KVH: 1, HS: 32, lengths: [70], Tmax: 72, theta: 10000 },
  // The _hs64 quad kernels: quads cut by the lengths and by Tmax, an unused slot, several key quads.
  { name: 'HS=64 quads, Qwen heads, odd lengths, unused slot', NH: 14, KVH: 2, HS: 64, lengths: [13, 0, 6], Tmax: 14, theta: 1e6 },
  { name: 'HS=64 quads, MHA', NH: 2, KVH: 2, HS: 64, lengths: [9, 4], Tmax: 10, theta: 1e6 },
];

// Tile-kernel cases: lengths ending inside a tile, on a tile boundary and in the first tile, Tmax
// not a multiple of 16, an unused slot, GQA with Qwen2.5's 14 / 2 heads and plain multi-head.
const tileCases: (AttnCase & { name: string })[] = [
  { name: 'Qwen heads, lengths 37, 0, 16, 5', NH: 14, KVH: 2, HS: 64, lengths: [37, 0, 16, 5], Tmax: 40, theta: 1e6 },
  { name: 'MHA, lengths 33 and 48', NH: 2, KVH: 2, HS: 64, lengths: [33, 48], Tmax: 48, theta: 1e6 },
  { name: 'one kv head, length 1 and 19', NH: 3, KVH: 1, HS: 64, lengths: [1, 19], Tmax: 19, theta: 1e6 },
  { name: 'HS=32, lengths 21 and 40', NH: 4, KVH: 2, HS: 32, lengths: [21, 40], Tmax: 41, theta: 10000 },
  { name: 'HS=128, lengths 17, 0 and 9', NH: 4, KVH: 1, HS: 128, lengths: [17, 0, 9], Tmax: 17, theta: 1e6 },
  { name: 'HS=48, lengths 13, 0 and 30', NH: 6, KVH: 3, HS: 48, lengths: [13, 0, 30], Tmax: 31, theta: 10000 },
];

describe('attention backward', () => {
  // The forward as training runs it (with the slot table) and by the row table alone.
  for (const [variant, packed] of ATTENTION_VARIANTS.flatMap((v) => [[v, true], [v, false]] as const)) {
    for (const c of cases) {
      if (!packed && variant === 'wg') continue;
      it(`${variant}${packed ? '' : ' (row-table forward)'}: ${c.name} (NH=${c.NH} KVH=${c.KVH} HS=${c.HS})`, async () => {
        const rt = await nodeRuntime();
        const { QKV, dO } = caseInputs(c, 11 + c.HS);
        const got = await gpuGrads(rt, c, variant, QKV, dO, packed);
        const ref = referenceGrads(c, QKV, dO);
        const d = {
          O: maxAbsDiff(got.O, ref.O), LSE: maxAbsDiff(got.LSE, ref.LSE),
          dQ: maxAbsDiff(got.dQ, ref.dQ), dK: maxAbsDiff(got.dK, ref.dK), dV: maxAbsDiff(got.dV, ref.dV),
        };
        const mag = Math.max(...ref.dQ.map(Math.abs), ...ref.dK.map(Math.abs), ...ref.dV.map(Math.abs));
        console.log(`attention backward ${variant}${packed ? '' : ' (rows)'} ${c.name} maxdiff O=${d.O.toExponential(2)} LSE=${d.LSE.toExponential(2)} ` +
          `dQ=${d.dQ.toExponential(2)} dK=${d.dK.toExponential(2)} dV=${d.dV.toExponential(2)} (max |grad| ${mag.toFixed(2)})`);
        expect(d.O).toBeLessThan(1e-5);
        expect(d.LSE).toBeLessThan(1e-5);
        expect(d.dQ).toBeLessThan(2e-5);
        expect(d.dK).toBeLessThan(2e-5);
        expect(d.dV).toBeLessThan(2e-5);
      });
    }
  }

  // Training (slot-table) and row-table forwards take the same online-softmax steps per query, so
  // a model's log-probs do not depend on which pass computed them.
  it('thread: the slot-table forward (HS = 8, 16, 32, 48 and 64: several queries per invocation) equals the row-table one bit for bit', async () => {
    const rt = await nodeRuntime();
    const small = tileCases.filter((k) => k.HS < 64);
    for (const c of [...cases, ...small].filter((k) => TRAIN_REGISTER_HEAD_SIZES.includes(k.HS))) {
      const { QKV, dO } = caseInputs(c, 11 + c.HS);
      const packed = await gpuGrads(rt, c, 'thread', QKV, dO, true);
      const byRows = await gpuGrads(rt, c, 'thread', QKV, dO, false);
      expect([packed.trainPositions, byRows.trainPositions], c.name).toEqual([c.HS === 8 ? 16 : 4, 0]);
      expect(maxAbsDiff(packed.O, byRows.O), c.name).toBe(0);
      expect(maxAbsDiff(packed.LSE, byRows.LSE), c.name).toBe(0);
    }
  });

  // The packed-training forward takes sixteen positions per invocation (four quads) by default:
  // lengths that end in each of the four quads of a group, inside one and at a boundary, against
  // the four-position form and the row-table form, bit for bit.
  it('thread HS = 8 and 16: sixteen positions per training-forward invocation equal four and the row-table form bit for bit', async () => {
    const rt = await nodeRuntime();
    const extras = [
      { name: 'lengths 10, 15, 12 and 34', NH: 4, KVH: 2, HS: 8, lengths: [10, 15, 12, 34], Tmax: 34, theta: 10000 },
      { name: 'HS=16 lengths 6, 11, 16 and 21', NH: 4, KVH: 2, HS: 16, lengths: [6, 11, 16, 21], Tmax: 22, theta: 10000 },
    ];
    for (const c of [...cases.filter((k) => k.HS === 8 || k.HS === 16), ...extras]) {
      const { QKV, dO } = caseInputs(c, 13 + c.Tmax);
      const sixteen = await gpuGrads(rt, c, 'thread', QKV, dO, true, { trainPositions: 16 });
      const four = await gpuGrads(rt, c, 'thread', QKV, dO, true, { trainPositions: 4 });
      const byRows = await gpuGrads(rt, c, 'thread', QKV, dO, false);
      console.log(`attention forward HS=${c.HS} 16 vs 4 positions ${c.name}: maxdiff O=${maxAbsDiff(sixteen.O, four.O).toExponential(2)} LSE=${maxAbsDiff(sixteen.LSE, four.LSE).toExponential(2)}`);
      for (const [name, g] of [['four positions', four], ['row table', byRows]] as const) {
        expect(Array.from(sixteen.O), `O vs ${name}, ${c.name}`).toEqual(Array.from(g.O));
        expect(Array.from(sixteen.LSE), `LSE vs ${name}, ${c.name}`).toEqual(Array.from(g.LSE));
      }
    }
  });

  // HS = 8 runs the fused dK/dV/dQ-partial kernel and its reduction (default); HS = 16 and 64 (and
  // HS = 8 with fused: false) keep each pair's P and dS between the dQ and dK/dV kernels, unless
  // the scratch would pass the budget: all three forms against the reference, and the kept and
  // recomputed forms' dQ bit for bit (the same per-query sums).
  it('thread HS = 8, 16, 32 and 64: fused (HS = 8), tiled (32, 64), P/dS kept and recomputed (budget 0 or too small) all match the reference', async () => {
    const rt = await nodeRuntime();
    const extra = { name: 'HS=8, three key groups of sixteen', NH: 4, KVH: 2, HS: 8, lengths: [21, 17, 33], Tmax: 34, theta: 10000 };
    for (const c of [...cases.filter((k) => PS_HEAD_SIZES.includes(k.HS) || tiledHeadSize(k.HS)), extra]) {
      const { QKV, dO } = caseInputs(c, 11 + c.HS);
      const ref = referenceGrads(c, QKV, dO);
      const fused = await gpuGrads(rt, c, 'thread', QKV, dO, true);
      const kept = await gpuGrads(rt, c, 'thread', QKV, dO, true, { fused: false, tiled: false });
      const none = await gpuGrads(rt, c, 'thread', QKV, dO, true, { psBudgetBytes: 0 });
      const small = await gpuGrads(rt, c, 'thread', QKV, dO, true, { psBudgetBytes: 256 });
      const byDefault = c.HS === 8 ? 'fused' : tiledHeadSize(c.HS) ? 'tiled' : 'kept';
      const hasKept = PS_HEAD_SIZES.includes(c.HS);
      expect([fused.form, kept.form, none.form, small.form], c.name).toEqual([byDefault, hasKept ? 'kept' : 'recomputed', 'recomputed', 'recomputed']);
      expect([fused.keptScores, kept.keptScores, none.keptScores], c.name).toEqual([c.HS === 16, hasKept, false]);
      for (const [name, g] of [['default', fused], ['kept', kept], ['recomputed', none]] as const) {
        const d = [maxAbsDiff(g.dQ, ref.dQ), maxAbsDiff(g.dK, ref.dK), maxAbsDiff(g.dV, ref.dV)];
        console.log(`attention backward HS=${c.HS} ${name} ${c.name} maxdiff dQ=${d[0].toExponential(2)} dK=${d[1].toExponential(2)} dV=${d[2].toExponential(2)}`);
        for (const x of d) expect(x, `${name} ${c.name}`).toBeLessThan(2e-5);
      }
      expect(maxAbsDiff(kept.dQ, none.dQ), c.name).toBe(0);
      expect(maxAbsDiff(small.dK, none.dK), c.name).toBe(0);
    }
  });

  // The 16 x 16 tile kernels: lengths ending inside a tile, on a tile boundary and in the first
  // tile, Tmax not a multiple of 16 (the planes' side rounds up), an unused slot, GQA with
  // Qwen2.5's 14 / 2 heads and plain multi-head, several key tiles per query tile; heads of 32 and
  // 128 (two and eight column tiles of dQ, dK, dV), which had only the generic kernels.
  it('thread HS = 32, 64 and 128: the tile kernels match the reference over tile boundaries', async () => {
    const rt = await nodeRuntime();
    expect([16, 32, 48, 64, 128, 136].map(tiledHeadSize)).toEqual([false, true, true, true, true, false]);
    for (const c of tileCases) {
      const { QKV, dO } = caseInputs(c, 7 + c.Tmax);
      const ref = referenceGrads(c, QKV, dO);
      const g = await gpuGrads(rt, c, 'thread', QKV, dO, true);
      expect(g.form, c.name).toBe('tiled');
      const d = [maxAbsDiff(g.dQ, ref.dQ), maxAbsDiff(g.dK, ref.dK), maxAbsDiff(g.dV, ref.dV)];
      console.log(`attention backward tiled ${c.name} maxdiff dQ=${d[0].toExponential(2)} dK=${d[1].toExponential(2)} dV=${d[2].toExponential(2)}`);
      for (const x of d) expect(x, c.name).toBeLessThan(2e-5);
    }
  });

  // The training forward keeps its scaled scores (HS = 64: attn_train_hs64_lse_s; 32 and 128:
  // attn_thread_lse_s) and the tile backward reads them instead of recomputing Q K^T
  // (attn_bwd_tile_sdp_s). The plane starts as NaN, so a cell the forward does not write (above
  // the diagonal, past a length, the rounding to 16) that reached a result would show. O and LSE
  // equal the plain forward's bit for bit.
  it('thread HS = 32, 64 and 128: the forward\'s kept scores feed the tile backward, matching the reference', async () => {
    const rt = await nodeRuntime();
    const kept = [...tileCases, ...cases].filter((k) => tiledHeadSize(k.HS));
    for (const c of kept) {
      const { QKV, dO } = caseInputs(c, 9 + c.Tmax);
      const ref = referenceGrads(c, QKV, dO);
      const plain = await gpuGrads(rt, c, 'thread', QKV, dO, true);
      const g = await gpuGrads(rt, c, 'thread', QKV, dO, true, { keepScores: true });
      expect([plain.form, g.form], c.name).toEqual(['tiled', 'tiled-scores']);
      expect(Array.from(g.O), c.name).toEqual(Array.from(plain.O));
      expect(Array.from(g.LSE), c.name).toEqual(Array.from(plain.LSE));
      const d = [maxAbsDiff(g.dQ, ref.dQ), maxAbsDiff(g.dK, ref.dK), maxAbsDiff(g.dV, ref.dV)];
      console.log(`attention backward tiled from kept scores ${c.name} maxdiff dQ=${d[0].toExponential(2)} dK=${d[1].toExponential(2)} dV=${d[2].toExponential(2)} ` +
        `(recomputed scores: dQ=${maxAbsDiff(plain.dQ, ref.dQ).toExponential(2)})`);
      for (const x of d) expect(x, c.name).toBeLessThan(2e-5);
    }
  });

  // The kept-P/dS dK/dV kernels take eight keys per invocation (two quads; Tmax 10, 11, 14, 21 and
  // 38 leave the second quad partly or wholly past the cache): the same sums in the same order as
  // four.
  // With the default size thresholds a call of fewer than 256 rows runs the four-position forward
  // and the recomputing backward (the wide pipelines cost seconds of compile on a CPU adapter);
  // at 256 rows or more the sixteen-position forward (HS = 8) and the fused (HS = 8) or kept-P/dS
  // (HS = 16) backward. HS = 64 runs the tile kernels at every size (they compile faster than the
  // recomputing pair). Both against the reference.
  it('thread HS = 8, 16 and 64: the default forms by call size (below / from 256 rows), all matching the reference', async () => {
    const rt = await nodeRuntime();
    const defaults = { psMinRows: PS_MIN_ROWS, sixteenMinRows: SIXTEEN_MIN_ROWS };
    const sized: (AttnCase & { name: string })[] = [
      { name: 'HS=8, 25 rows', NH: 4, KVH: 2, HS: 8, lengths: [10, 15], Tmax: 16, theta: 10000 },
      { name: 'HS=8, 270 rows', NH: 4, KVH: 2, HS: 8, lengths: [130, 140], Tmax: 140, theta: 10000 },
      { name: 'HS=16, 30 rows', NH: 4, KVH: 2, HS: 16, lengths: [18, 12], Tmax: 18, theta: 10000 },
      { name: 'HS=16, 262 rows', NH: 4, KVH: 2, HS: 16, lengths: [150, 112], Tmax: 150, theta: 10000 },
      { name: 'HS=64, 30 rows', NH: 4, KVH: 2, HS: 64, lengths: [18, 12], Tmax: 18, theta: 1e6 },
      { name: 'HS=64, 258 rows', NH: 4, KVH: 2, HS: 64, lengths: [129, 129], Tmax: 129, theta: 1e6 },
    ];
    const got: string[] = [];
    for (const c of sized) {
      const { QKV, dO } = caseInputs(c, 5 + c.Tmax);
      const ref = referenceGrads(c, QKV, dO);
      const g = await gpuGrads(rt, c, 'thread', QKV, dO, true, defaults);
      got.push(`${c.name}: ${g.trainPositions} positions, ${g.form}`);
      const d = [maxAbsDiff(g.O, ref.O), maxAbsDiff(g.dQ, ref.dQ), maxAbsDiff(g.dK, ref.dK), maxAbsDiff(g.dV, ref.dV)];
      console.log(`attention default forms ${c.name}: ${g.trainPositions} positions, ${g.form}; maxdiff O=${d[0].toExponential(2)} dQ=${d[1].toExponential(2)} dK=${d[2].toExponential(2)} dV=${d[3].toExponential(2)}`);
      for (const x of d) expect(x, c.name).toBeLessThan(2e-5);
    }
    expect(got).toEqual([
      'HS=8, 25 rows: 4 positions, recomputed', 'HS=8, 270 rows: 16 positions, fused',
      'HS=16, 30 rows: 4 positions, recomputed', 'HS=16, 262 rows: 4 positions, kept',
      'HS=64, 30 rows: 4 positions, tiled', 'HS=64, 258 rows: 4 positions, tiled',
    ]);
  });

  it('thread HS = 8, 16 and 64: eight keys per dK/dV invocation equal four bit for bit', async () => {
    const rt = await nodeRuntime();
    const extras = [
      { name: 'two slots of 21 and 17', NH: 4, KVH: 2, HS: 16, lengths: [21, 17], Tmax: 21, theta: 10000 },
      { name: 'HS=64 two slots of 21 and 17', NH: 4, KVH: 2, HS: 64, lengths: [21, 17], Tmax: 21, theta: 1e6 },
    ];
    for (const c of [...cases.filter((k) => PS_HEAD_SIZES.includes(k.HS)), ...extras]) {
      const { QKV, dO } = caseInputs(c, 5 + c.Tmax);
      const four = await gpuGrads(rt, c, 'thread', QKV, dO, true, { fused: false, tiled: false, dkvKeys: 4 });
      expect(four.dkvKeys, c.name).toBe(4);
      for (const keys of [8] as const) {
        const g = await gpuGrads(rt, c, 'thread', QKV, dO, true, { fused: false, tiled: false, dkvKeys: keys });
        expect(g.dkvKeys, c.name).toBe(keys);
        console.log(`attention backward HS=${c.HS} dK/dV ${keys} vs 4 keys ${c.name}: maxdiff dK=${maxAbsDiff(g.dK, four.dK).toExponential(2)} dV=${maxAbsDiff(g.dV, four.dV).toExponential(2)}`);
        expect(Array.from(g.dK), `${keys} keys, ${c.name}`).toEqual(Array.from(four.dK));
        expect(Array.from(g.dV), `${keys} keys, ${c.name}`).toEqual(Array.from(four.dV));
      }
    }
  });

  // At HS = 16 the default dK/dV kernel takes sixteen keys (the whole head) as a 16 x 16 tile
  // from the dQ kernel's P/dS (attn_bwd_tile_dkv_ps): lengths across key tiles, Tmax past a tile
  // boundary, an empty slot and four query heads per kv head, against the reference and the
  // eight-key form (dQ is the same kernel's, bit for bit).
  it('thread HS = 16: sixteen keys per dK/dV invocation match the reference and eight keys', async () => {
    const rt = await nodeRuntime();
    const extras = [
      { name: 'lengths 37 and 29 (three key tiles)', NH: 4, KVH: 2, HS: 16, lengths: [37, 29], Tmax: 38, theta: 10000 },
      { name: 'lengths 16, 33 and 0, four heads per kv head', NH: 4, KVH: 1, HS: 16, lengths: [16, 33, 0], Tmax: 33, theta: 10000 },
      { name: 'lengths 6, 11, 16 and 21', NH: 4, KVH: 2, HS: 16, lengths: [6, 11, 16, 21], Tmax: 22, theta: 10000 },
    ];
    for (const c of [...cases.filter((k) => k.HS === 16), ...extras]) {
      const { QKV, dO } = caseInputs(c, 7 + c.Tmax);
      const ref = referenceGrads(c, QKV, dO);
      const sixteen = await gpuGrads(rt, c, 'thread', QKV, dO, true);
      const eight = await gpuGrads(rt, c, 'thread', QKV, dO, true, { dkvKeys: 8 });
      expect([sixteen.form, sixteen.dkvKeys, eight.dkvKeys], c.name).toEqual(['kept', 16, 8]);
      const d = [maxAbsDiff(sixteen.dK, ref.dK), maxAbsDiff(sixteen.dV, ref.dV), maxAbsDiff(sixteen.dK, eight.dK), maxAbsDiff(sixteen.dV, eight.dV)];
      console.log(`attention backward HS=16 dK/dV 16 keys ${c.name}: maxdiff vs reference dK=${d[0].toExponential(2)} dV=${d[1].toExponential(2)}, vs 8 keys dK=${d[2].toExponential(2)} dV=${d[3].toExponential(2)}`);
      for (const x of d) expect(x, c.name).toBeLessThan(2e-5);
      expect(Array.from(sixteen.dQ), c.name).toEqual(Array.from(eight.dQ));
    }
  });

  // A device that allows the WebGPU default of eight storage buffers per stage cannot bind the
  // fused kernel's nine: the backward then runs the kept-P/dS kernels, with the same results.
  it('thread HS = 8: a device with eight storage buffers per stage runs the kept-P/dS form', async () => {
    const { gpu } = await getNodeGpu();
    const capped = await GpuRuntime.create(gpu, { capLimits: { maxStorageBuffersPerShaderStage: 8 } });
    expect(capped.device.limits.maxStorageBuffersPerShaderStage).toBe(8);
    const c = cases.find((k) => k.HS === 8 && k.Tmax === 38)!;
    const { QKV, dO } = caseInputs(c, 21);
    const ref = referenceGrads(c, QKV, dO);
    const g = await gpuGrads(capped, c, 'thread', QKV, dO, true);
    expect(g.form).toBe('kept');
    for (const t of ['dQ', 'dK', 'dV'] as const) expect(maxAbsDiff(g[t], ref[t]), t).toBeLessThan(2e-5);
    const full = await nodeRuntime();
    expect(full.device.limits.maxStorageBuffersPerShaderStage).toBeGreaterThanOrEqual(FUSED_STORAGE_BUFFERS);
    capped.device.destroy();
  });

  // The kept-P/dS form at HS = 16 folds the stats into its dQ kernel (nine storage buffers): one
  // dispatch fewer, and dQ, dK and dV bit for bit those of the stats kernel, which runs with
  // foldStats false or on a device that allows eight storage buffers per stage. Lengths that end
  // inside a quad, on a quad boundary and a single position.
  it('thread HS = 16: the stats folded into dQ give the stats kernel\'s grads bit for bit, one dispatch fewer', async () => {
    const rt = await nodeRuntime();
    const { gpu } = await getNodeGpu();
    const capped = await GpuRuntime.create(gpu, { capLimits: { maxStorageBuffersPerShaderStage: 8 } });
    const c = { name: 'fold', NH: 4, KVH: 2, HS: 16, lengths: [37, 16, 1, 29], Tmax: 38, theta: 10000 };
    const { QKV, dO } = caseInputs(c, 23);
    const ref = referenceGrads(c, QKV, dO);
    const folded = await gpuGrads(rt, c, 'thread', QKV, dO, true);
    const unfolded = await gpuGrads(rt, c, 'thread', QKV, dO, true, { foldStats: false });
    const cappedRun = await gpuGrads(capped, c, 'thread', QKV, dO, true);
    expect([folded.form, unfolded.form, cappedRun.form]).toEqual(['kept', 'kept', 'kept']);
    expect([folded.statsFolded, unfolded.statsFolded, cappedRun.statsFolded]).toEqual([true, false, false]);
    expect([folded.dispatches, unfolded.dispatches, cappedRun.dispatches]).toEqual([3, 4, 4]);
    const shape = { variant: 'thread' as const, HS: 16, NH: 4, B: 4, Tmax: 38, M: 83, minRows: 0 };
    expect([attentionBackwardDispatches(shape), attentionBackwardDispatches({ ...shape, foldStats: false })]).toEqual([3, 4]);
    for (const t of ['dQ', 'dK', 'dV'] as const) {
      expect(Array.from(folded[t]), t).toEqual(Array.from(unfolded[t]));
      expect(Array.from(folded[t]), t).toEqual(Array.from(cappedRun[t]));
    }
    console.log(`attention backward HS=16 stats folded: maxdiff vs reference dQ=${maxAbsDiff(folded.dQ, ref.dQ).toExponential(2)} dK=${maxAbsDiff(folded.dK, ref.dK).toExponential(2)} dV=${maxAbsDiff(folded.dV, ref.dV).toExponential(2)}`);
    for (const t of ['dQ', 'dK', 'dV'] as const) expect(maxAbsDiff(folded[t], ref[t]), t).toBeLessThan(2e-5);
    capped.device.destroy();
  });

  // One instance over batches of another shape: its scratch then holds the earlier batch's values
  // where this batch's layout has cells no query reaches (P/dS: a key after the quad's queries;
  // tiles: the planes of another side), which the kernels must never read. Fused, tiled and kept
  // forms.
  it('thread HS = 8, 16 and 64: a reused scratch gives the same grads as a fresh one', async () => {
    const rt = await nodeRuntime();
    for (const wide of [true, false]) {
      for (const HS of PS_HEAD_SIZES) {
        const big = { name: 'big', NH: 4, KVH: 2, HS, lengths: [37, 29], Tmax: 38, theta: 10000 };
        const small = { name: 'small', NH: 4, KVH: 2, HS, lengths: [14, 9], Tmax: 14, theta: 10000 };
        const opts = { fused: wide, tiled: wide };
        const bwd = await AttentionBackward.create(rt, { NH: 4, KVH: 2, HS, variant: 'thread', maxRows: 66, ...opts, psMinRows: 0 });
        const b = caseInputs(big, 3), s = caseInputs(small, 4);
        await gpuGrads(rt, big, 'thread', b.QKV, b.dO, true, {}, bwd);
        const reused = await gpuGrads(rt, small, 'thread', s.QKV, s.dO, true, {}, bwd);
        bwd.destroy();
        const fresh = await gpuGrads(rt, small, 'thread', s.QKV, s.dO, true, opts);
        const form = !wide || HS === 16 ? 'kept' : HS === 8 ? 'fused' : 'tiled';
        expect([reused.form, fresh.form]).toEqual([form, form]);
        for (const t of ['dQ', 'dK', 'dV'] as const) expect(Array.from(reused[t]), `${t}, HS ${HS}, wide forms ${wide}`).toEqual(Array.from(fresh[t]));
      }
    }
  });

  // The kept-P/dS dQ kernels take eight queries per invocation (two quads; lengths that end in the
  // first quad, in the second, inside one and at a quad boundary): the same sums in the same order
  // as four, and the same P and dS (the dK/dV read them).
  it('thread HS = 8 and 16: eight queries per dQ invocation equal four bit for bit', async () => {
    const rt = await nodeRuntime();
    const extras = [
      { name: 'lengths 21, 8 and 4', NH: 4, KVH: 2, HS: 8, lengths: [21, 8, 4], Tmax: 23, theta: 10000 },
      { name: 'lengths 10, 15, 12 and 34', NH: 4, KVH: 2, HS: 8, lengths: [10, 15, 12, 34], Tmax: 34, theta: 10000 },
      { name: 'HS=16 lengths 6, 11 and 16', NH: 4, KVH: 2, HS: 16, lengths: [6, 11, 16], Tmax: 18, theta: 10000 },
    ];
    for (const c of [...cases.filter((k) => DQ8_HEAD_SIZES.includes(k.HS)), ...extras]) {
      const { QKV, dO } = caseInputs(c, 7 + c.Tmax);
      const four = await gpuGrads(rt, c, 'thread', QKV, dO, true, { fused: false, dqQueries: 4 });
      expect(four.dqQueries, c.name).toBe(4);
      for (const queries of [8] as const) {
        const g = await gpuGrads(rt, c, 'thread', QKV, dO, true, { fused: false, dqQueries: queries });
        expect([g.dqQueries, g.keptScores], c.name).toEqual([queries, true]);
        console.log(`attention backward HS=${c.HS} dQ ${queries} vs 4 queries ${c.name}: maxdiff dQ=${maxAbsDiff(g.dQ, four.dQ).toExponential(2)} ` +
          `dK=${maxAbsDiff(g.dK, four.dK).toExponential(2)} dV=${maxAbsDiff(g.dV, four.dV).toExponential(2)}`);
        for (const t of ['dQ', 'dK', 'dV'] as const) expect(Array.from(g[t]), `${t}, ${queries} queries, ${c.name}`).toEqual(Array.from(four[t]));
      }
    }
    // HS = 64 has the four-query dQ kernel only: asking for eight runs it.
    const c64 = cases.find((k) => k.HS === 64)!;
    const { QKV, dO } = caseInputs(c64, 9);
    const g64 = await gpuGrads(rt, c64, 'thread', QKV, dO, true, { tiled: false, dqQueries: 8 });
    expect([g64.dqQueries, g64.form]).toEqual([4, 'kept']);
  });

  // TrainStep's shared rows: the query rows below a slot's start copy another slot's, their
  // outputs are not read and their dO is 0. With the starts in the slot table every training form
  // skips the query quads / tiles below the start (rounded down to 16), forward and backward;
  // dK, dV and the read rows' O, LSE and dQ stay those of the run without starts bit for bit
  // (the skipped terms were exact zeros; the wg form regroups its sums), and match the reference. The kept-P/dS forms run on a
  // scratch that a full run with another dO filled first: a dK/dV kernel that read a skipped
  // quad's stale P/dS would differ.
  it('thread and wg, HS = 8, 16, 32 and 64: slot starts skip the queries below them, every form', async () => {
    const rt = await nodeRuntime();
    const shapes = [[8, 4, 2], [16, 4, 2], [32, 4, 2], [64, 14, 2]] as const;
    const raw = [20, 35, 0, 40];   // rows shared per slot (slot 3's start past its length: all skipped but the last quad's tile)
    for (const [HS, NH, KVH] of shapes) {
      const c: AttnCase & { name: string } = { name: `starts HS=${HS}`, NH, KVH, HS, lengths: [37, 50, 21, 44], Tmax: 50, theta: 10000 };
      const { QKV, dO: dOFull } = caseInputs(c, 31 + HS);
      const rowStart: number[] = [];
      c.lengths.reduce((r, n) => { rowStart.push(r); return r + n; }, 0);
      const dO = dOFull.slice();
      const W = NH * HS;
      c.lengths.forEach((n, b) => dO.fill(0, rowStart[b] * W, (rowStart[b] + Math.min(raw[b], n)) * W));
      const ref = referenceGrads(c, QKV, dO);
      // Rows at or past each slot's start rounded down to 16 (the rows whose results are read, and more).
      const read = (x: Float32Array, width: number) => Float32Array.from(c.lengths.flatMap((n, b) => {
        const a = Math.floor(Math.min(raw[b], n) / 16) * 16;
        return Array.from(x.subarray((rowStart[b] + a) * width, (rowStart[b] + n) * width));
      }));
      type Form = Parameters<typeof gpuGrads>[6];
      const forms: [string, 'thread' | 'wg', Form][] = [
        ['default', 'thread', {}], ['recomputed', 'thread', { psBudgetBytes: 0 }], ['wg', 'wg', {}],
        ...(HS === 8 ? [['kept', 'thread', { fused: false }]] as [string, 'thread', Form][] : []),
        ...(HS === 16 ? [['sixteen positions, kept ps (4 queries, 4 keys)', 'thread', { trainPositions: 16, dqQueries: 4, dkvKeys: 4 }], ['eight keys', 'thread', { dkvKeys: 8 }]] as [string, 'thread', Form][] : []),
        ...(HS >= 32 ? [['kept scores', 'thread', { keepScores: true }]] as [string, 'thread', Form][] : []),
        ...(HS === 64 ? [['kept P/dS', 'thread', { tiled: false }]] as [string, 'thread', Form][] : []),
      ];
      for (const [name, variant, form] of forms) {
        const packed = variant === 'thread';
        const bwd = await AttentionBackward.create(rt, { NH, KVH, HS, variant, maxRows: packedLen(c), psMinRows: 0, ...backwardOnly(form) });
        const plain = await gpuGrads(rt, c, variant, QKV, dO, packed, form, bwd);
        await gpuGrads(rt, c, variant, QKV, dOFull, packed, form, bwd);   // fills the P/dS scratch with another dO's values
        const skip = await gpuGrads(rt, c, variant, QKV, dO, packed, { ...form, starts: raw, poisonO: true }, bwd);
        bwd.destroy();
        const dRef = [maxAbsDiff(read(skip.dQ, W), read(ref.dQ, W)), maxAbsDiff(skip.dK, ref.dK), maxAbsDiff(skip.dV, ref.dV), maxAbsDiff(read(skip.O, W), read(ref.O, W))];
        console.log(`attention starts HS=${HS} ${name} (${skip.form}): vs reference dQ=${dRef[0].toExponential(2)} dK=${dRef[1].toExponential(2)} dV=${dRef[2].toExponential(2)} O=${dRef[3].toExponential(2)}`);
        for (const x of dRef) expect(x, `${name} HS=${HS}`).toBeLessThan(2e-5);
        expect(skip.form, name).toBe(plain.form);
        if (packed && TRAIN_REGISTER_HEAD_SIZES.includes(HS)) {
          // The slot-table forward skipped the rows below slot 1's start (32): its O stayed NaN there.
          const below = (g: { O: Float32Array }) => g.O.subarray(rowStart[1] * W, (rowStart[1] + 32) * W);
          expect(below(skip).every((x) => Number.isNaN(x)), `${name} HS=${HS}: O below the start`).toBe(true);
          expect(below(plain).some((x) => Number.isNaN(x))).toBe(false);
        }
        for (const [k, a, b] of [['dK', skip.dK, plain.dK], ['dV', skip.dV, plain.dV], ['dQ', read(skip.dQ, W), read(plain.dQ, W)], ['O', read(skip.O, W), read(plain.O, W)], ['LSE', read(skip.LSE, NH), read(plain.LSE, NH)]] as const) {
          // The wg form sums its pairs in workgroup-sized chunks, which now start elsewhere: rounding only.
          expect(maxAbsDiff(a, b), `${k}: ${name} HS=${HS} with starts vs without`).toBeLessThanOrEqual(variant === 'wg' ? 2e-6 : 0);
        }
      }
    }
  }, 300_000);

  it('sequenceTable: first row and length per slot; rejects non-training row tables', () => {
    const rows = Uint32Array.from([0, 0, 0, 1, 2, 0, 2, 1, 2, 2]);
    expect(Array.from(sequenceTable(rows, 3))).toEqual([0, 2, 0, 0, 2, 3]);
    // Starts rounded down to 16 in the length word's high bits (and never past the length).
    const long = Uint32Array.from(Array.from({ length: 40 }, (_, i) => [i < 20 ? 0 : 1, i % 20]).flat());
    expect(Array.from(sequenceTable(long, 2, [17, 31]))).toEqual([0, 20 | (16 << 16), 20, 20 | (16 << 16)]);
    expect(Array.from(sequenceTable(long, 2, [15, 0]))).toEqual([0, 20, 20, 20]);
    expect(() => sequenceTable(Uint32Array.from([0, 1, 0, 2]), 1)).toThrow(/positions 0..T-1/);
    expect(() => sequenceTable(Uint32Array.from([0, 0, 1, 0, 0, 1]), 2)).toThrow(/contiguous/);
    expect(() => sequenceTable(Uint32Array.from([3, 0]), 2)).toThrow(ShapeError);
  });

  it('rejects wrong shapes with the op name and the expected shape', async () => {
    const rt = await nodeRuntime();
    const cache = new KvCache(rt, { numLayers: 1, B: 1, KVH: 2, HS: 8, Tmax: 8 });
    const bwd = await AttentionBackward.create(rt, { NH: 4, KVH: 2, HS: 8, variant: 'thread', maxRows: 4 });
    const ok = rt.storage(4 * 32 * 4, 'ok'), small = rt.storage(16, 'small'), big = rt.storage(cache.layerBytes, 'cache-sized');
    const args = { Q: ok, O: ok, dO: ok, LSE: ok, rows: ok, seqs: ok, cache, layer: 0, M: 4, dQ: ok, dK: big, dV: big };
    expect(() => bwd.run({ ...args, dO: small })).toThrow(/attention_backward: expected dO of \[4, 32\]/);
    expect(() => bwd.run({ ...args, dK: small })).toThrow(/attention_backward: expected dK of \[1, 2, 8, 8\]/);
    expect(() => bwd.run({ ...args, M: 5 })).toThrow(/maxRows = 4/);
    await expect(AttentionBackward.create(rt, { NH: 4, KVH: 3, HS: 8, variant: 'thread', maxRows: 1 })).rejects.toThrow(ShapeError);
    const attn = await Attention.create(rt, { NH: 4, KVH: 2, HS: 8, variant: 'thread', lse: true });
    expect(() => attn.run(ok, ok, cache, 0, ok, 4)).toThrow(/attention: expected LSE of \[4, 4\]/);
    // Sixteen positions per training-forward invocation exist at HS = 8 and 16 only.
    await expect(Attention.create(rt, { NH: 4, KVH: 2, HS: 64, variant: 'thread', lse: true, trainPositions: 16 })).rejects.toThrow(/trainPositions 4 at HS=64/);
    // Sixteen keys per dK/dV invocation (a tile of the whole head) exist at HS = 16 only.
    await expect(AttentionBackward.create(rt, { NH: 4, KVH: 2, HS: 8, variant: 'thread', maxRows: 4, fused: false, dkvKeys: 16 })).rejects.toThrow(/dkvKeys 4 or 8 \(16 is for heads of 16\), got dkvKeys=16 at HS=8/);
    rt.release(ok, small, big);
    bwd.destroy();
    cache.free();
  });
});
