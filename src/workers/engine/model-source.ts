// The FileSource behind each ModelSource of the engine worker: a folder served with the app
// (UrlSource), dropped files (FileListSource), or a folder kept in the Origin Private File System
// (DirectoryHandleSource over OPFS models/NAME: ranged reads, so a big safetensors is never read
// whole). Used by engine.ts (load-model) and inspect.ts; exercised by tests/e2e/studio-models.spec.ts.
import { DirectoryHandleSource, FileListSource } from '../../model/io/browser-source';
import type { FileSource } from '../../model/io/source';
import { splitPath } from '../../run/storage';
import type { ModelSource } from './protocol';
import { UrlSource } from './url-source';

/** The OPFS folder at `path` ("models/NAME"), or null when it does not exist (created when `create`). */
export async function opfsFolder(path: string, create: boolean): Promise<FileSystemDirectoryHandle | null> {
  let dir = await navigator.storage.getDirectory();
  try {
    for (const part of splitPath(path)) dir = await dir.getDirectoryHandle(part, { create });
    return dir;
  } catch (e) {
    if (!create && e instanceof DOMException && (e.name === 'NotFoundError' || e.name === 'TypeMismatchError')) return null;
    throw e;
  }
}

/** A model folder in OPFS as a FileSource named "opfs:/models/NAME". */
export class OpfsModelSource extends DirectoryHandleSource {
  override readonly name: string;

  constructor(root: FileSystemDirectoryHandle, path: string) {
    super(root);
    this.name = `opfs:/${path}`;
  }
}

export async function openModelSource(source: ModelSource): Promise<FileSource> {
  if ('url' in source) return new UrlSource(source.url);
  if ('files' in source) return new FileListSource(source.files, 'dropped files', source.paths);
  const dir = await opfsFolder(source.opfs, false);
  if (!dir) throw new Error(`opfs:/${source.opfs} does not exist in this browser's storage; add the model again in the Models panel`);
  return new OpfsModelSource(dir, source.opfs);
}
