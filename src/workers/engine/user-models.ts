// The model folders a user added, kept in the Origin Private File System under models/NAME/ so
// they are listed again after a reload and loaded by the engine worker (ModelSource `{ opfs }`).
// A dropped folder is inspected first and stored only when the engine can use it; files are
// streamed into models/.incoming-NAME/, which becomes models/NAME/ once complete.
// Exercised by tests/e2e/studio-models.spec.ts.
import { FileListSource, relativePaths } from '../../model/io/browser-source';
import { splitPath } from '../../run/storage';
import { inspectModel, type ModelReport } from './inspect';
import { OpfsModelSource, opfsFolder } from './model-source';

export const MODELS_DIR = 'models';
const INCOMING = '.incoming-';
/** Names a user model may take (a folder name and a `model.path` a config can name). */
export const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

type Movable = FileSystemDirectoryHandle & { move?: (parent: FileSystemDirectoryHandle, name: string) => Promise<void> };
type Iterable = FileSystemDirectoryHandle & { entries(): AsyncIterable<[string, FileSystemHandle]> };

export function checkModelName(name: string): void {
  if (!MODEL_NAME.test(name)) throw new Error(`model name "${name}": use letters, digits, ".", "_" or "-" (up to 64, starting with a letter or digit)`);
}

/** Names of the stored model folders (finished imports only). */
export async function listUserModels(): Promise<string[]> {
  const dir = await opfsFolder(MODELS_DIR, true);
  const names: string[] = [];
  for await (const [name, h] of (dir as Iterable).entries()) if (h.kind === 'directory' && !name.startsWith('.')) names.push(name);
  return names.sort();
}

export async function removeUserModel(name: string): Promise<void> {
  checkModelName(name);
  const dir = (await opfsFolder(MODELS_DIR, true))!;
  try {
    await dir.removeEntry(name, { recursive: true });
  } catch (e) {
    if (!(e instanceof DOMException && e.name === 'NotFoundError')) throw e;
  }
}

/** Inspects the dropped files; when usable, copies them into models/NAME/ and returns the stored copy's report. */
export async function importUserModel(name: string, files: File[], paths: string[], onProgress?: (done: number, total: number, stage: string) => void): Promise<{ stored: boolean; report: ModelReport }> {
  checkModelName(name);
  if ((await listUserModels()).includes(name)) throw new Error(`a model named "${name}" is already stored; remove it first or pick another name`);
  const dropped = await inspectModel(new FileListSource(files, 'the dropped folder', paths));
  if (dropped.problems.length) return { stored: false, report: dropped };

  const models = (await opfsFolder(MODELS_DIR, true))!;
  const tmp = INCOMING + name;
  await models.removeEntry(tmp, { recursive: true }).catch(() => undefined);
  const root = await models.getDirectoryHandle(tmp, { create: true });
  try {
    const rel = relativePaths(files, paths);
    const total = files.reduce((a, f) => a + f.size, 0);
    let done = 0;
    for (const [i, path] of rel.entries()) {
      onProgress?.(done, total, `storing ${path}`);
      const parts = splitPath(path);
      let d = root;
      for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p, { create: true });
      const w = await (await d.getFileHandle(parts[parts.length - 1], { create: true })).createWritable();
      await files[i].stream().pipeTo(w); // streamed: a big safetensors file is never held whole
      done += files[i].size;
    }
    onProgress?.(done, total, 'checking the stored copy');
    await moveFolder(models, root, tmp, name);
  } catch (e) {
    await models.removeEntry(tmp, { recursive: true }).catch(() => undefined);
    throw new Error(`storing ${name} in the browser failed: ${(e as Error).message}; free some disk space or check the browser's storage settings, then add it again`);
  }
  const path = `${MODELS_DIR}/${name}`;
  return { stored: true, report: await inspectModel(new OpfsModelSource((await opfsFolder(path, false))!, path)) };
}

/** models/.incoming-NAME -> models/NAME: move() where the browser has it (Chromium), else a copy. */
async function moveFolder(parent: FileSystemDirectoryHandle, from: FileSystemDirectoryHandle, fromName: string, to: string): Promise<void> {
  const m = from as Movable;
  if (typeof m.move === 'function') {
    await m.move(parent, to);
    return;
  }
  await copyDir(from, await parent.getDirectoryHandle(to, { create: true }));
  await parent.removeEntry(fromName, { recursive: true });
}

async function copyDir(from: FileSystemDirectoryHandle, to: FileSystemDirectoryHandle): Promise<void> {
  for await (const [name, h] of (from as Iterable).entries()) {
    if (h.kind === 'directory') await copyDir(h as FileSystemDirectoryHandle, await to.getDirectoryHandle(name, { create: true }));
    else await (await (h as FileSystemFileHandle).getFile()).stream().pipeTo(await (await to.getFileHandle(name, { create: true })).createWritable());
  }
}
