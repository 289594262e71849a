// EmbeddingBackward (embed_bwd in shaders/embedding.wgsl) against embedding_backward: repeated
// ids, a pre-filled dwte (+=), two plans into the same dwte, deterministic results. Prints maxdiff.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { EmbeddingBackward } from '../../../src/gpu/kernels/embedding-backward';
import { embedding_backward } from '../../../src/reference/embedding';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

describe('embedding backward', () => {
  const V = 50, C = 264;
  const ids = [3, 0, 49, 3, 17, 25, 8, 3, 49, 0, 11];
  const ids2 = [7, 3, 3];

  it('scatter-adds rows by id into a pre-filled dwte, deterministically', async () => {
    const rt = await nodeRuntime();
    const N = ids.length, N2 = ids2.length;
    const dout = randomArray(N * C, 51), dout2 = randomArray(N2 * C, 52), dwte0 = randomArray(V * C, 53);
    const ref = dwte0.slice();
    const wte = new Float32Array(V * C);
    embedding_backward(dout, wte, ids, C, ref);
    embedding_backward(dout2, wte, ids2, C, ref);
    const bwd = await EmbeddingBackward.create(rt, V, C);
    const db = rt.upload(dout, 'dout'), db2 = rt.upload(dout2, 'dout2'), gb = rt.upload(dwte0, 'dwte');
    const p1 = bwd.plan(ids), p2 = bwd.plan(ids2);
    expect([p1.U, p2.U]).toEqual([7, 2]);
    bwd.run(p1, db, gb);
    bwd.run(p2, db2, gb);
    const first = await rt.readF32(gb, V * C);
    const d = maxAbsDiff(first, ref);
    rt.write(gb, dwte0);
    bwd.run(p1, db, gb);
    bwd.run(p2, db2, gb);
    const second = await rt.readF32(gb, V * C);
    console.log(`embedding_backward V=${V} C=${C} N=${N}+${N2} maxdiff=${d.toExponential(2)}; rerun identical=${maxAbsDiff(first, second) === 0}`);
    expect(d).toBeLessThan(1e-6);
    expect(maxAbsDiff(first, second)).toBe(0);
    p1.release();
    p2.release();
    rt.release(db, db2, gb);
  });

  it('rejects bad ids and wrong shapes with the op and the expected shape', async () => {
    const rt = await nodeRuntime();
    const bwd = await EmbeddingBackward.create(rt, V, C);
    expect(() => bwd.plan([1, 50])).toThrow(/embedding_backward: expected token ids in \[0, 50\), got id 50 at row 1/);
    const plan = bwd.plan([1, 2]);
    const small = rt.storage(16, 'small'), dout = rt.storage(2 * C * 4, 'dout');
    expect(() => bwd.run(plan, small, small)).toThrow(ShapeError);
    expect(() => bwd.run(plan, dout, small)).toThrow(/embedding_backward: expected dwte of \[50, 264\]/);
    plan.release();
    rt.release(small, dout);
  });
});
