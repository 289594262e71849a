// The file-source abstraction: one interface over a Node directory, dropped browser files, a
// File System Access directory handle, or bytes in memory, so every reader below it has one
// code path. Implementations: node-source.ts, browser-source.ts, memory-source.ts (files that arrive whole:
// whole-file-source.ts).
import { stripBom } from '../../data/jsonl';
import { ModelLoadError } from './errors';

export interface FileSource {
  /** A name for messages: a folder path, "dropped files", ... */
  readonly name: string;
  /** Every file, as a '/'-separated path relative to the source root. */
  list(): Promise<string[]>;
  /** Byte size; throws ModelLoadError naming the path when it is missing. */
  size(path: string): Promise<number>;
  /** Bytes [start, end) (end defaults to the file size) in a fresh, 8-byte aligned buffer. */
  read(path: string, start?: number, end?: number): Promise<Uint8Array>;
  readText(path: string): Promise<string>;
}

export type LoadStage = 'config' | 'header' | 'tensors' | 'tokenizer' | 'convert' | 'adapter';

export interface ProgressInfo {
  file: string;
  loadedBytes: number;
  totalBytes: number;
  stage: LoadStage;
}

export type ProgressFn = (info: ProgressInfo) => void;

/** True when `path` exists in the source. */
export async function hasFile(src: FileSource, path: string): Promise<boolean> {
  return (await src.list()).includes(path);
}

/** Read and parse a JSON file (a leading BOM is accepted), naming it when it is missing or not JSON. */
export async function readJson(src: FileSource, path: string): Promise<unknown> {
  const text = await src.readText(path);
  try {
    return JSON.parse(stripBom(text)) as unknown;
  } catch (e) {
    throw new ModelLoadError(path, `is not valid JSON (${(e as Error).message}); re-download the file`);
  }
}

/** The error every source throws for a path it does not hold. */
export function missingFile(src: FileSource, path: string): ModelLoadError {
  return new ModelLoadError(path, `missing from ${src.name}; add the file (or pick the folder that holds it)`);
}

/** Clamp a ranged read to the file and name the file when the range falls outside it. */
export function checkRange(path: string, size: number, start = 0, end = size): [number, number] {
  if (start < 0 || end < start || end > size) {
    throw new ModelLoadError(path, `read of bytes [${start}, ${end}) past the end of the file (${size} bytes): the file is truncated; re-download it`);
  }
  return [start, end];
}
