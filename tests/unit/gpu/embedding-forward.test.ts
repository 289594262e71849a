// Embedding gather (shaders/embedding.wgsl) from an f32 table and from an NF4 table quantized on
// the GPU, against embedding_forward (with nf4_roundtrip for NF4). Prints maxdiff.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { Embedding } from '../../../src/gpu/kernels/embedding';
import { Nf4Quantizer } from '../../../src/gpu/kernels/nf4';
import { embedding_forward } from '../../../src/reference/embedding';
import { maxAbsDiff } from '../../../src/reference/matmul';
import { nf4_roundtrip } from '../../../src/reference/nf4';
import { randomArray } from '../../../src/gpu/selftest';
import { ShapeError } from '../../../src/gpu/errors';

describe('embedding', () => {
  const V = 50, C = 96, ids = [3, 0, 49, 3, 17, 25, 8];
  const N = ids.length;
  const wte = randomArray(V * C, 31);

  it('f32 table matches embedding_forward exactly', async () => {
    const rt = await nodeRuntime();
    const tb = rt.upload(wte, 'wte'), ib = rt.upload(new Uint32Array(ids), 'ids'), ob = rt.storage(N * C * 4, 'out');
    const emb = await Embedding.create(rt, { format: 'f32', wte: tb }, V, C);
    emb.run(ib, ob, N);
    const d = maxAbsDiff(await rt.readF32(ob, N * C), embedding_forward(wte, ids, C));
    console.log(`embedding f32 V=${V} C=${C} N=${N} maxdiff=${d.toExponential(2)}`);
    expect(d).toBe(0);
    rt.release(tb, ib, ob);
  });

  it('NF4 table matches embedding_forward(nf4_roundtrip(wte)) exactly; ids >= V give zeros', async () => {
    const rt = await nodeRuntime();
    const tb = rt.upload(wte, 'wte');
    const { weight } = await (await Nf4Quantizer.create(rt)).quantize(tb, V, C, 'wte');
    const all = [...ids, V + 5];
    const ib = rt.upload(new Uint32Array(all), 'ids'), ob = rt.storage(all.length * C * 4, 'out');
    const emb = await Embedding.create(rt, { format: 'nf4', q: weight }, V, C);
    emb.run(ib, ob, all.length);
    const got = await rt.readF32(ob, all.length * C);
    const d = maxAbsDiff(got.subarray(0, N * C), embedding_forward(nf4_roundtrip(wte), ids, C));
    console.log(`embedding nf4 V=${V} C=${C} N=${N} maxdiff=${d.toExponential(2)}`);
    expect(d).toBe(0);
    expect(got.subarray(N * C).every((v) => v === 0)).toBe(true);
    rt.release(tb, ib, ob, weight.codes, weight.absmax);
  });

  it('rejects wrong shapes', async () => {
    const rt = await nodeRuntime();
    const tb = rt.storage(V * C * 4, 'wte');
    await expect(Embedding.create(rt, { format: 'f32', wte: tb }, V + 1, C)).rejects.toThrow(ShapeError);
    const emb = await Embedding.create(rt, { format: 'f32', wte: tb }, V, C);
    const ib = rt.storage(16, 'ids'), ob = rt.storage(4 * C * 4, 'out');
    expect(() => emb.run(ib, ob, 5)).toThrow(/embedding: expected ids of \[5\]/);
    rt.release(tb, ib, ob);
  });
});
