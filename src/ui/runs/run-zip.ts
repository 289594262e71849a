// A run folder <-> files: the zip the Runs panel exports (RUNID/config.yaml, RUNID/metrics.jsonl,
// RUNID/checkpoints/step-N/..., the CLI's layout under one top folder) and what it imports (such a zip,
// a folder picked with the directory picker, or dropped files), with fflate. No React.
// Exercised by tests/e2e/studio-runs.spec.ts (export, then import of the same zip).
import { unzipSync, zipSync, type Zippable } from 'fflate';

export interface RunFolderFiles {
  /** The folder's name (the run id it is imported as). */
  runId: string;
  /** Paths relative to the run folder. */
  files: { path: string; bytes: Uint8Array }[];
}

/** The run folder as a zip with one top folder named after the run. */
export function zipRunFolder(f: RunFolderFiles): Uint8Array {
  const tree: Zippable = {};
  for (const { path, bytes } of f.files) tree[`${f.runId}/${path}`] = [bytes, { level: path.endsWith('.safetensors') ? 0 : 6 }];
  return zipSync(tree);
}

/**
 * Files given with paths (zip entries, webkitRelativePath of a picked folder): the run folder is
 * the one holding config.yaml (at the top, or under one folder), named by that folder or `fallback`.
 */
export function runFolderOf(entries: { path: string; bytes: Uint8Array }[], fallback: string): RunFolderFiles {
  const configs = entries.map((e) => e.path).filter((p) => p === 'config.yaml' || p.endsWith('/config.yaml'));
  if (!configs.length) {
    throw new Error(`no config.yaml among ${entries.length} file(s) (${entries.slice(0, 4).map((e) => e.path).join(', ')}${entries.length > 4 ? ', ...' : ''}); pick the run folder the CLI wrote (it holds config.yaml and metrics.jsonl)`);
  }
  const shallowest = configs.sort((a, b) => a.split('/').length - b.split('/').length)[0];
  const prefix = shallowest.slice(0, -'config.yaml'.length);
  const runId = (prefix ? prefix.slice(0, -1).split('/').pop()! : fallback).replace(/[^A-Za-z0-9._-]/g, '-');
  const files = entries.filter((e) => e.path.startsWith(prefix) && !e.path.endsWith('/')).map((e) => ({ path: e.path.slice(prefix.length), bytes: e.bytes }));
  return { runId, files };
}

/** A zip's entries (folders left out). */
export function unzipEntries(zip: Uint8Array, name: string): { path: string; bytes: Uint8Array }[] {
  let out: Record<string, Uint8Array>;
  try {
    out = unzipSync(zip);
  } catch (e) {
    throw new Error(`${name}: not a readable zip (${(e as Error).message}); export the run folder again or pick the folder itself`);
  }
  return Object.entries(out).filter(([p]) => !p.endsWith('/') && !p.startsWith('__MACOSX/')).map(([path, bytes]) => ({ path, bytes }));
}

/** Picked or dropped files: one zip, or the files of a folder (webkitRelativePath when picked as a folder). */
export async function runFolderFromFiles(list: File[]): Promise<RunFolderFiles> {
  if (!list.length) throw new Error('no file was given; pick the run folder or its zip');
  if (list.length === 1 && /\.zip$/i.test(list[0].name)) {
    const zip = list[0];
    return runFolderOf(unzipEntries(new Uint8Array(await zip.arrayBuffer()), zip.name), zip.name.replace(/\.zip$/i, ''));
  }
  const entries = await Promise.all(list.map(async (f) => ({ path: f.webkitRelativePath || f.name, bytes: new Uint8Array(await f.arrayBuffer()) })));
  return runFolderOf(entries, `imported-${Date.now()}`);
}
