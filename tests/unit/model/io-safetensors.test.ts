// safetensors: writer -> reader round trips in F32/F16/BF16 (maxdiff printed), sharded
// checkpoints, Node ranged reads from disk, and every bad input the reader must name: truncated
// file, corrupt header, overlapping or holed offsets, shape/length mismatch, unsupported dtype.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSafetensors } from '../../../src/model/io/safetensors-write';
import { readSafetensorsHeader, readTensor } from '../../../src/model/io/safetensors';
import { openWeights } from '../../../src/model/io/weights';
import { MemorySource } from '../../../src/model/io/memory-source';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { ModelLoadError } from '../../../src/model/io/errors';
import { randomArray } from '../../../src/gpu/selftest';
import { maxAbsDiff } from '../../../src/reference/matmul';
import type { HostTensor } from '../../../src/model/types';

const tensors = new Map<string, HostTensor>([
  ['a.weight', { shape: [3, 5], data: randomArray(15, 1) }],
  ['b.bias', { shape: [7], data: randomArray(7, 2) }],
  ['c', { shape: [2, 3, 4], data: randomArray(24, 3) }],
]);

/** A file whose header JSON is replaced (length prefix fixed up), data kept. */
function withHeader(header: unknown, data: Uint8Array): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

async function header(bytes: Uint8Array, name = 'model.safetensors') {
  return readSafetensorsHeader(new MemorySource({ [name]: bytes }), name);
}

describe('safetensors round trip', () => {
  for (const [dtype, tol] of [['F32', 0], ['F16', 1e-3], ['BF16', 8e-3]] as const) {
    it(`${dtype}: values come back within the dtype's precision`, async () => {
      const bytes = writeSafetensors(tensors, { format: 'pt' }, { dtype });
      const src = new MemorySource({ 'model.safetensors': bytes });
      const h = await readSafetensorsHeader(src, 'model.safetensors');
      expect(h.metadata).toEqual({ format: 'pt' });
      expect((h.dataStart - 8) % 8).toBe(0); // header padded to 8 bytes
      let worst = 0;
      for (const [name, t] of tensors) {
        const got = await readTensor(src, h.tensors.get(name)!);
        expect(got.shape).toEqual(t.shape);
        worst = Math.max(worst, maxAbsDiff(got.data, t.data));
      }
      console.log(`safetensors ${dtype} round trip maxdiff=${worst.toExponential(2)}`);
      expect(worst).toBeLessThanOrEqual(tol);
    });
  }

  it('converts special f16/bf16 values exactly', async () => {
    const vals = new Float32Array([0, -0, 1, -2.5, 65504, 6.103515625e-5, 5.960464477539063e-8, Infinity, -Infinity, 1e-9]);
    for (const dtype of ['F16', 'BF16'] as const) {
      const src = new MemorySource({ 'x.safetensors': writeSafetensors([['x', { shape: [vals.length], data: vals }]], {}, { dtype }) });
      const got = (await openWeights(src)).read('x');
      const d = (await got).data;
      expect(Array.from(d.subarray(0, 5))).toEqual([0, -0, 1, -2.5, dtype === 'F16' ? 65504 : 65536]);
      expect(d[7]).toBe(Infinity);
      expect(d[8]).toBe(-Infinity);
      if (dtype === 'F16') expect([d[5], d[6], d[9]]).toEqual([6.103515625e-5, 5.960464477539063e-8, 0]);
    }
  });

  it('streams tensors one by one with byte progress, from disk via ranged reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'io-st-'));
    writeFileSync(join(dir, 'model.safetensors'), writeSafetensors(tensors));
    const seen: number[] = [];
    const w = await openWeights(new NodeDirSource(dir));
    const names: string[] = [];
    for await (const [name, t] of w.stream(undefined, (p) => seen.push(p.loadedBytes))) {
      names.push(name);
      expect(maxAbsDiff(t.data, tensors.get(name)!.data)).toBe(0);
    }
    expect(names).toEqual(['a.weight', 'b.bias', 'c']);
    expect(seen).toEqual([60, 88, 184]);
    expect(w.totalBytes).toBe(184);
  });

  it('reads a sharded checkpoint through model.safetensors.index.json', async () => {
    const s1 = writeSafetensors([['a.weight', tensors.get('a.weight')!]]);
    const s2 = writeSafetensors([['b.bias', tensors.get('b.bias')!], ['c', tensors.get('c')!]]);
    const index = { metadata: { total_size: 184 }, weight_map: { 'a.weight': 'model-00001-of-00002.safetensors', 'b.bias': 'model-00002-of-00002.safetensors', c: 'model-00002-of-00002.safetensors' } };
    const files = { 'model-00001-of-00002.safetensors': s1, 'model-00002-of-00002.safetensors': s2, 'model.safetensors.index.json': JSON.stringify(index) };
    const all = await (await openWeights(new MemorySource(files))).readAll();
    expect([...all.keys()].sort()).toEqual(['a.weight', 'b.bias', 'c']);
    expect(maxAbsDiff(all.get('c')!.data, tensors.get('c')!.data)).toBe(0);

    const wrong = { ...index, weight_map: { ...index.weight_map, c: 'model-00001-of-00002.safetensors' } };
    await expect(openWeights(new MemorySource({ ...files, 'model.safetensors.index.json': JSON.stringify(wrong) }))).rejects.toThrow(/model-00001-of-00002\.safetensors: tensor "c" is listed/);
    const { 'model-00002-of-00002.safetensors': _gone, ...missingShard } = files;
    await expect(openWeights(new MemorySource(missingShard))).rejects.toThrow(/model-00002-of-00002\.safetensors: missing from/);
  });
});

describe('safetensors bad inputs', () => {
  const good = writeSafetensors(tensors);

  it('truncated file', async () => {
    await expect(header(good.subarray(0, good.length - 10))).rejects.toThrow(/model\.safetensors: truncated: tensor "c"/);
    await expect(header(good.subarray(0, 40))).rejects.toThrow(/header says \d+ bytes but the file has 32/);
    await expect(header(good.subarray(0, 5))).rejects.toThrow(/5 bytes, too small/);
  });

  it('corrupt header', async () => {
    const bad = good.slice();
    bad[8] = 0x78; // 'x' instead of the opening '{'
    await expect(header(bad)).rejects.toThrow(/corrupt safetensors header: not UTF-8 JSON/);
    const huge = good.slice();
    new DataView(huge.buffer).setBigUint64(0, 1n << 40n, true);
    const key = good.slice();
    key[12] = 0x7b; // still JSON, but "__metadata__" becomes a tensor entry without a dtype
    await expect(header(key)).rejects.toThrow(/tensor "__\{etadata__" has unknown dtype/);
    await expect(header(huge)).rejects.toThrow(/over the 100000000-byte limit/);
    const data = new Uint8Array(16);
    await expect(header(withHeader({ x: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, y: { dtype: 'F32', shape: [2], data_offsets: [4, 12] } }, data)))
      .rejects.toThrow(/tensor "y" starts at data offset 4 but the previous tensor ends at 8/);
    await expect(header(withHeader({ x: { dtype: 'F32', shape: [2], data_offsets: [8, 16] } }, data))).rejects.toThrow(/without holes/);
    await expect(header(withHeader({ x: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, data))).rejects.toThrow(/8 trailing bytes/);
  });

  it('wrong shape for the byte length', async () => {
    await expect(header(withHeader({ x: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, new Uint8Array(8))))
      .rejects.toThrow(/tensor "x" has shape \[3\] x F32 = 12 bytes but data_offsets span 8 bytes/);
  });

  it('unsupported dtype names the tensor and the supported ones', async () => {
    const src = new MemorySource({ 'model.safetensors': withHeader({ ids: { dtype: 'I64', shape: [2], data_offsets: [0, 16] } }, new Uint8Array(16)) });
    const w = await openWeights(src);
    const err = await w.read('ids').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelLoadError);
    expect((err as ModelLoadError).item).toBe('ids');
    expect(String(err)).toMatch(/model\.safetensors: tensor "ids" has dtype I64; supported: F32, F16, BF16/);
    await expect(header(withHeader({ x: { dtype: 'Q4', shape: [2], data_offsets: [0, 1] } }, new Uint8Array(1)))).rejects.toThrow(/unknown dtype "Q4"/);
  });

  it('missing weights file', async () => {
    await expect(openWeights(new MemorySource({ 'config.json': '{}' }, 'folder /models/x'))).rejects.toThrow(/model\.safetensors: missing from folder \/models\/x/);
  });
});
