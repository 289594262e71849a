// safetensors reader: an 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets: [begin, end]}, __metadata__?}, then the packed data.
// The header is validated in full (sane size, known dtypes, shape x dtype size = byte length,
// offsets in range, contiguous, no holes) before any tensor is read; tensors are then read one
// at a time by ranged reads. Tested by tests/unit/model/io-safetensors.test.ts.
import type { HostTensor } from '../types';
import { DTYPE_BYTES, SUPPORTED_DTYPES, isSupportedDtype, toFloat32 } from './dtype';
import { ModelLoadError } from './errors';
import type { FileSource } from './source';

/** The format's own cap on the JSON header (safetensors refuses larger headers too). */
export const MAX_HEADER_BYTES = 100_000_000;

export interface TensorInfo {
  name: string;
  /** The file holding it (a shard for sharded checkpoints). */
  file: string;
  dtype: string;
  shape: number[];
  /** Absolute byte range in the file. */
  begin: number;
  end: number;
}

export interface SafetensorsHeader {
  file: string;
  fileSize: number;
  /** Byte where the data section starts (8 + header length). */
  dataStart: number;
  metadata: Record<string, string>;
  /** In file order. */
  tensors: Map<string, TensorInfo>;
}

const numel = (shape: number[]) => shape.reduce((a, b) => a * b, 1);

/** Read and validate the header of `file` (two small ranged reads). */
export async function readSafetensorsHeader(src: FileSource, file: string): Promise<SafetensorsHeader> {
  const fileSize = await src.size(file);
  if (fileSize < 8) throw new ModelLoadError(file, `is ${fileSize} bytes, too small for a safetensors file: it is truncated; re-download it`);
  const lenBytes = await src.read(file, 0, 8);
  const n = Number(new DataView(lenBytes.buffer, lenBytes.byteOffset, 8).getBigUint64(0, true));
  if (n > MAX_HEADER_BYTES) throw new ModelLoadError(file, `header length ${n} is over the ${MAX_HEADER_BYTES}-byte limit: not a safetensors file, or corrupt; re-download it (or export it again)`);
  if (8 + n > fileSize) throw new ModelLoadError(file, `header says ${n} bytes but the file has ${fileSize - 8} after the length: the file is truncated or not safetensors; re-download it (or export it again)`);
  return parseSafetensorsHeader(file, await src.read(file, 8, 8 + n), fileSize);
}

/** Validate a header's JSON bytes against the file size. */
export function parseSafetensorsHeader(file: string, headerBytes: Uint8Array, fileSize: number): SafetensorsHeader {
  const dataStart = 8 + headerBytes.length;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(headerBytes));
  } catch (e) {
    throw new ModelLoadError(file, `corrupt safetensors header: not UTF-8 JSON (${(e as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ModelLoadError(file, 'corrupt safetensors header: expected a JSON object');
  const metadata: Record<string, string> = {};
  const list: TensorInfo[] = [];
  for (const [name, v] of Object.entries(json as Record<string, unknown>)) {
    if (name === '__metadata__') {
      Object.assign(metadata, v as Record<string, string>);
      continue;
    }
    list.push(checkEntry(file, name, v, dataStart));
  }
  list.sort((a, b) => a.begin - b.begin || a.end - b.end);
  let at = dataStart;
  for (const t of list) {
    if (t.begin !== at) {
      throw new ModelLoadError(file, `corrupt safetensors header: tensor "${t.name}" starts at data offset ${t.begin - dataStart} but the previous tensor ends at ${at - dataStart} (tensors must be contiguous, without holes or overlaps)`, t.name);
    }
    at = t.end;
  }
  if (at > fileSize) {
    const last = list[list.length - 1];
    throw new ModelLoadError(file, `truncated: tensor "${last.name}" ends at byte ${at} but the file has ${fileSize} bytes; re-download the file`, last.name);
  }
  if (at < fileSize) throw new ModelLoadError(file, `corrupt safetensors file: ${fileSize - at} trailing bytes after the last tensor`);
  return { file, fileSize, dataStart, metadata, tensors: new Map(list.map((t) => [t.name, t])) };
}

function checkEntry(file: string, name: string, v: unknown, dataStart: number): TensorInfo {
  const bad = (what: string) => new ModelLoadError(file, `corrupt safetensors header: tensor "${name}" ${what}`, name);
  if (typeof v !== 'object' || v === null) throw bad('is not an object');
  const { dtype, shape, data_offsets: off } = v as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
  if (typeof dtype !== 'string' || !(dtype in DTYPE_BYTES)) throw bad(`has unknown dtype ${JSON.stringify(dtype)}`);
  if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0)) throw bad(`has invalid shape ${JSON.stringify(shape)}`);
  if (!Array.isArray(off) || off.length !== 2 || !off.every((d) => Number.isInteger(d) && d >= 0) || off[1] < off[0]) {
    throw bad(`has invalid data_offsets ${JSON.stringify(off)}`);
  }
  const bytes = numel(shape as number[]) * DTYPE_BYTES[dtype];
  if (off[1] - off[0] !== bytes) {
    throw bad(`has shape [${(shape as number[]).join(', ')}] x ${dtype} = ${bytes} bytes but data_offsets span ${off[1] - off[0]} bytes`);
  }
  return { name, file, dtype, shape: shape as number[], begin: dataStart + off[0], end: dataStart + off[1] };
}

/** Throw unless the tensor's dtype converts to f32. */
export function checkDtype(t: TensorInfo): void {
  if (!isSupportedDtype(t.dtype)) {
    throw new ModelLoadError(t.file, `tensor "${t.name}" has dtype ${t.dtype}; supported: ${SUPPORTED_DTYPES.join(', ')}. Convert the checkpoint to one of these (e.g. torch_dtype=float16)`, t.name);
  }
}

/** Read one tensor (one ranged read) and convert it to f32. */
export async function readTensor(src: FileSource, t: TensorInfo): Promise<HostTensor> {
  checkDtype(t);
  const bytes = await src.read(t.file, t.begin, t.end);
  if (bytes.length !== t.end - t.begin) {
    throw new ModelLoadError(t.file, `tensor "${t.name}": got ${bytes.length} of ${t.end - t.begin} bytes; the file is truncated`, t.name);
  }
  return { shape: t.shape.slice(), data: toFloat32(t.dtype as (typeof SUPPORTED_DTYPES)[number], bytes, numel(t.shape)) };
}
