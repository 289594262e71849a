// Node only (node:fs): writes an export or checkpoint file map (peft-export.ts, checkpoint.ts)
// into a folder without ever leaving a half-written folder under its final name: the files go to
// `DIR.tmp` (each flushed with fsync, in map order), then `DIR.tmp` replaces `DIR` by renames
// (the old `DIR` is kept as `DIR.old` until the new one is in place). Exercised by
// tests/unit/run/run-folder.test.ts and the kill test tests/unit/cli/run-kill.test.ts.
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Suffixes of the two side folders a replacement can leave behind when interrupted. */
export const TMP_SUFFIX = '.tmp';
export const OLD_SUFFIX = '.old';

/**
 * Test hook: milliseconds to pause after each file of writeFilesAtomic, so a kill test's SIGKILL
 * lands inside checkpoint writes. Unset (0) in normal use.
 */
const pauseMs = (): number => Number(process.env.RL_STUDIO_TEST_WRITE_PAUSE_MS ?? 0) || 0;

function checkName(name: string): void {
  if (name.split('/').some((part) => part === '..' || part === '')) throw new Error(`writeFiles: refusing the file name "${name}" (empty or ".." path part)`);
}

/** Writes bytes to `path` and flushes them to the disk before returning. */
export async function writeFileSynced(path: string, bytes: Uint8Array | string): Promise<void> {
  const fh = await open(path, 'w');
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Flushes a folder's entries (new names, renames) to the disk. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

const exists = async (p: string) => stat(p).then(() => true, () => false);

/** Writes the files into `dir` as they are (no temporary name); for folders nobody reads while they are written. */
export async function writeFiles(dir: string, files: Map<string, Uint8Array>): Promise<string[]> {
  const written: string[] = [];
  for (const [name, bytes] of files) {
    checkName(name);
    const path = join(dir, ...name.split('/'));
    await mkdir(dirname(path), { recursive: true });
    await writeFileSynced(path, bytes);
    written.push(path);
    const ms = pauseMs();
    if (ms > 0) await new Promise((r) => setTimeout(r, ms));
  }
  return written;
}

/**
 * Writes `files` into `dir` atomically: into `dir.tmp`, flushed, then renamed over `dir`. While
 * it runs, a complete copy is always on the disk: the old `dir`, or `dir.old` and a complete
 * `dir.tmp` (run-folder.ts picks the newest complete one on resume).
 */
export async function writeFilesAtomic(dir: string, files: Map<string, Uint8Array>): Promise<string[]> {
  const tmp = dir + TMP_SUFFIX;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  const written = await writeFiles(tmp, files);
  await syncDir(tmp);
  await replaceDir(tmp, dir);
  return written.map((p) => dir + p.slice(tmp.length));
}

/** Puts the complete folder `from` in place of `to`, keeping the old `to` as `to.old` until the rename is done. */
export async function replaceDir(from: string, to: string): Promise<void> {
  const old = to + OLD_SUFFIX;
  if (await exists(to)) {
    await rm(old, { recursive: true, force: true });
    await rename(to, old);
  }
  await rename(from, to);
  await syncDir(dirname(to));
  await rm(old, { recursive: true, force: true });
}
