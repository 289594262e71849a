// Harness functions for model loading in the browser: build File objects (or OPFS files reached
// through a FileSystemDirectoryHandle) from bytes handed in by the test, load them with
// loadModelFiles, and report config, tensor checks, tokenizer ids and a short greedy generation
// from the CPU reference. The e2e spec passes stories260K.bin + tok512.bin as base64.
import type { Harness } from './types';
import { bytesOf } from './bytes';
import { FileListSource, DirectoryHandleSource } from '../model/io/browser-source';
import { loadModelFiles } from '../model/io/loader';
import type { FileSource, ProgressInfo } from '../model/io/source';
import { greedy_generate } from '../reference/model';

/** name -> base64 bytes. */
type FilesB64 = Record<string, string>;


async function summarize(src: FileSource, greedyTokens: number) {
  const progress: ProgressInfo[] = [];
  const m = await loadModelFiles(src, { onProgress: (p) => progress.push(p) });
  const weights = await m.weights.readAll();
  const bos = m.config.bosTokenId;
  const gen = greedyTokens > 0 && bos !== undefined ? greedy_generate(m.config, weights, [bos], greedyTokens, []) : [];
  return {
    source: m.source.name,
    config: m.config,
    tensors: weights.size,
    tokenizerVocab: m.tokenizer.vocabSize,
    helloIds: m.tokenizer.encode('Once upon a time'),
    text: bos === undefined ? '' : m.tokenizer.decode([bos, ...gen], { skipSpecialTokens: true }),
    stages: [...new Set(progress.map((p) => p.stage))],
  };
}

export function register(h: Harness): void {
  /** Dropped files: File objects with a webkitRelativePath-less flat list. */
  h.ioLoadFromFiles = async (files: FilesB64, greedyTokens = 0) => {
    const list = Object.entries(files).map(([name, b64]) => new File([bytesOf(b64) as BlobPart], name));
    return summarize(new FileListSource(list), greedyTokens);
  };
  /** A FileSystemDirectoryHandle: the files are written into the origin-private file system first. */
  h.ioLoadFromOpfs = async (files: FilesB64, greedyTokens = 0) => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle(`io-harness-${Date.now()}`, { create: true });
    for (const [name, b64] of Object.entries(files)) {
      const w = await (await dir.getFileHandle(name, { create: true })).createWritable();
      await w.write(bytesOf(b64) as BlobPart);
      await w.close();
    }
    try {
      return await summarize(new DirectoryHandleSource(dir), greedyTokens);
    } finally {
      await root.removeEntry(dir.name, { recursive: true });
    }
  };
}
