// A model folder the user gave the studio, as the files and their paths inside the folder: from a
// drop (folders walked through DataTransfer entries; loose files as they are), a File System
// Access directory handle (showDirectoryPicker), or an <input webkitdirectory> FileList.
// Used by src/ui/models/AddModelCard.tsx; exercised by tests/e2e/studio-models.spec.ts.

export interface PickedFolder {
  /** The folder's own name (a default for the model's name), or null for loose files. */
  folder: string | null;
  files: File[];
  /** Each file's path, the folder's name first when there is one ("my-model/config.json"). */
  paths: string[];
}

type Iterable = FileSystemDirectoryHandle & { values(): AsyncIterable<FileSystemDirectoryHandle | FileSystemFileHandle> };

const topOf = (paths: string[]): string | null => {
  const tops = new Set(paths.map((p) => (p.includes('/') ? p.slice(0, p.indexOf('/')) : '')));
  return tops.size === 1 && !tops.has('') ? [...tops][0] : null;
};

export function fromFileList(list: FileList | File[]): PickedFolder {
  const files = Array.from(list);
  const paths = files.map((f) => f.webkitRelativePath || f.name);
  return { folder: topOf(paths), files, paths };
}

export async function fromDirectoryHandle(root: FileSystemDirectoryHandle): Promise<PickedFolder> {
  const files: File[] = [], paths: string[] = [];
  const walk = async (dir: FileSystemDirectoryHandle, prefix: string): Promise<void> => {
    for await (const h of (dir as Iterable).values()) {
      if (h.kind === 'directory') await walk(h, `${prefix}${h.name}/`);
      else {
        files.push(await h.getFile());
        paths.push(`${prefix}${h.name}`);
      }
    }
  };
  await walk(root, `${root.name}/`);
  return { folder: root.name, files, paths };
}

const fileOf = (e: FileSystemFileEntry) => new Promise<File>((resolve, reject) => e.file(resolve, reject));

async function entriesOf(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader(), out: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) return out;
    out.push(...batch);
  }
}

/** The dropped items: a folder is walked (its files keep their paths), loose files are taken as they are. */
export async function fromDrop(dt: DataTransfer): Promise<PickedFolder> {
  const entries = Array.from(dt.items).map((i) => (i.kind === 'file' ? i.webkitGetAsEntry() : null));
  if (!entries.length || entries.some((e) => !e)) return fromFileList(dt.files);
  const files: File[] = [], paths: string[] = [];
  const walk = async (e: FileSystemEntry, prefix: string): Promise<void> => {
    if (e.isDirectory) for (const c of await entriesOf(e as FileSystemDirectoryEntry)) await walk(c, `${prefix}${e.name}/`);
    else {
      files.push(await fileOf(e as FileSystemFileEntry));
      paths.push(`${prefix}${e.name}`);
    }
  };
  for (const e of entries) await walk(e!, '');
  return { folder: topOf(paths), files, paths };
}
