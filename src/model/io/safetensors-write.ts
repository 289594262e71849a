// safetensors writer: tensors (f32 in memory) -> one Uint8Array in the format that
// safetensors/PEFT/transformers load (header padded with spaces to 8 bytes, metadata
// {"format": "pt"} by default). Used for PEFT export, llama2.c conversion and test fixtures;
// tested by tests/unit/model/io-safetensors.test.ts (round trip through the reader).
import type { HostTensor } from '../types';
import { fromFloat32, type FloatDtype } from './dtype';

export interface WriteOptions {
  /** Stored element type (default F32). */
  dtype?: FloatDtype;
}

export function writeSafetensors(
  tensors: Map<string, HostTensor> | Iterable<[string, HostTensor]>,
  metadata: Record<string, string> = { format: 'pt' },
  opts: WriteOptions = {},
): Uint8Array {
  const dtype = opts.dtype ?? 'F32';
  const header: Record<string, unknown> = { __metadata__: metadata };
  const blobs: Uint8Array[] = [];
  let off = 0;
  for (const [name, t] of tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    if (n !== t.data.length) throw new Error(`writeSafetensors: tensor "${name}" has shape [${t.shape.join(', ')}] (${n} values) but ${t.data.length} values`);
    const b = fromFloat32(dtype, t.data);
    header[name] = { dtype, shape: t.shape, data_offsets: [off, off + b.length] };
    blobs.push(b);
    off += b.length;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const pad = (8 - (json.length % 8)) % 8;
  if (pad) json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(pad));
  const out = new Uint8Array(8 + json.length + off);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const b of blobs) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}
