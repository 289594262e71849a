// The files of a drop on the Runs panel: a dropped folder is walked (webkitGetAsEntry) and each
// file keeps its path inside the drop ("run-1/checkpoints/step-4/state.json"), so a run folder dropped
// whole imports like a picked one; dropped files or a zip come as they are.
// Exercised by tests/e2e/studio-runs.spec.ts (drop of an exported zip).

/** File with the path it had inside the dropped folder (read by run-zip.ts runFolderFromFiles). */
function withPath(f: File, path: string): File {
  if (path === f.name) return f;
  return Object.defineProperty(new File([f], f.name, { type: f.type, lastModified: f.lastModified }), 'webkitRelativePath', { value: path });
}

async function walk(entry: FileSystemEntry, prefix: string, out: File[]): Promise<void> {
  const path = prefix ? `${prefix}/${entry.name}` : entry.name;
  if (entry.isFile) {
    const f = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej));
    out.push(withPath(f, path));
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
    if (!batch.length) break;
    for (const e of batch) await walk(e, path, out);
  }
}

export async function droppedFiles(dt: DataTransfer): Promise<File[]> {
  const entries = [...dt.items].map((i) => i.webkitGetAsEntry?.() ?? null);
  if (!entries.length || entries.some((e) => e === null)) return [...dt.files];
  const out: File[] = [];
  for (const e of entries) await walk(e!, '', out);
  return out;
}
