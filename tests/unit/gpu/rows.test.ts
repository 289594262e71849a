// GatherRows (shaders/rows.wgsl) against its CPU twin gatherRows: picked rows with an index
// offset, NO_ROW rows as zeros, the inverse index spreading compact rows back (the training
// step's loss rows), and the launcher's shape checks. Prints maxdiff per case.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { GatherRows } from '../../../src/gpu/kernels/rows';
import { gatherRows, inverseRows, NO_ROW } from '../../../src/reference/rows';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

describe('GatherRows', () => {
  it('gathers picked rows (offset into the index list, NO_ROW as zeros) and spreads them back with the inverse index', async () => {
    const rt = await nodeRuntime();
    const g = await GatherRows.create(rt);
    for (const W of [1, 7, 4, 12, 64]) {   // W % 4 == 0: the vec4 entry
      const M = 37;
      const src = randomArray(M * W, W);
      const picked = [3, 0, 36, 17, 18, 5, 30];
      const idx = Uint32Array.from([9, 9, ...picked]);   // the list starts at i0 = 2
      const idxBuf = rt.upload(idx, 'rows idx'), srcBuf = rt.upload(src, 'rows src');
      const dst = rt.storage(picked.length * W * 4, 'rows dst');
      g.run(srcBuf, idxBuf, 2, picked.length, W, dst);
      const got = await rt.readF32(dst, picked.length * W);
      const dGather = maxAbsDiff(got, gatherRows(src, idx, W, 2, picked.length));
      // Back to M rows: the picked rows where they came from, zeros elsewhere.
      const inv = inverseRows(picked, M);
      const invBuf = rt.upload(inv, 'rows inverse');
      const back = rt.storage(M * W * 4, 'rows back');
      rt.write(back, new Float32Array(M * W).fill(7));   // stale values must be overwritten
      g.run(dst, invBuf, 0, M, W, back);
      const spread = await rt.readF32(back, M * W);
      const want = new Float32Array(M * W);
      for (const r of picked) want.set(src.subarray(r * W, (r + 1) * W), r * W);
      const dSpread = maxAbsDiff(spread, want);
      const dTwin = maxAbsDiff(spread, gatherRows(got, inv, W));
      console.log(`gather_rows W=${W}: gather maxdiff=${dGather}, spread back maxdiff=${dSpread} (twin ${dTwin})`);
      expect(dGather).toBe(0);
      expect(dSpread).toBe(0);
      expect(dTwin).toBe(0);
      expect(Array.from(inv).filter((v) => v === NO_ROW).length).toBe(M - picked.length);
      rt.release(idxBuf, srcBuf, dst, invBuf, back);
    }
  });

  it('refuses an index list or output too small, and a repeated or out-of-range pick in the inverse', async () => {
    const rt = await nodeRuntime();
    const g = await GatherRows.create(rt);
    const src = rt.storage(64 * 4, 'src'), idx = rt.storage(4 * 4, 'idx'), dst = rt.storage(8 * 4, 'dst');
    expect(() => g.run(src, idx, 2, 3, 2, dst)).toThrow(/idx of \[5\] u32/);
    expect(() => g.run(src, idx, 0, 4, 4, dst)).toThrow(ShapeError);
    expect(() => g.run(src, idx, 0, 4, 0, dst)).toThrow(/W \(floats per row\)/);
    expect(() => inverseRows([1, 2, 1], 4)).toThrow(/row 1 is picked twice/);
    expect(() => inverseRows([4], 4)).toThrow(/outside \[0, 4\)/);
    rt.release(src, idx, dst);
  });
});
