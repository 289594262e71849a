// The engine worker's stored runs (OPFS runs/ID/, the CLI's layout): every run folder summarised
// (config, steps done, last checkpoint, how it ended from status.json: none means cut off), the
// run lock (a Web Lock: a run another tab trains is listed live there), opening, importing and
// deleting a stored run. engine.ts answers list-runs / import-run / delete-run / resume-run with
// these. Exercised by tests/e2e/studio-runs.spec.ts and tests/unit/workers/stored-runs.test.ts.
import { parse } from 'yaml';
import type { RunEndRecord } from '../../run/recorder';
import { OpfsStorage } from '../../run/opfs-storage';
import { CHECKPOINTS_DIR, CONFIG_FILE, LEGACY_SFT_CHECKPOINT, METRICS_FILE, SOURCE_FILE, STATUS_FILE, checkpointPath } from '../../run/layout';
import { readText, splitPath, type RunStorage } from '../../run/storage';
import { parseConfig, type RunConfig } from '../../run/config';
import { TRAINING_ELSEWHERE, type DatasetSource, type RunStatus, type StoredRun } from './protocol';

export const RUNS_ROOT = 'runs';

/** A run id is one folder name: letters, digits, '.', '_' and '-' (no '/', not '.' or '..'). */
export function checkRunId(runId: string): string {
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(runId) || runId === '.' || runId === '..' || /\.(tmp|old)$/.test(runId)) {
    throw new Error(`run id "${runId}": use 1-128 letters, digits, '.', '_' or '-' (not ending in .tmp / .old)`);
  }
  return runId;
}

async function runsDir(): Promise<FileSystemDirectoryHandle> {
  return (await navigator.storage.getDirectory()).getDirectoryHandle(RUNS_ROOT, { create: true });
}

/** Names of every run folder in OPFS runs/ (sorted). */
export async function storedRunIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const [name, h] of (await runsDir() as FileSystemDirectoryHandle & { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
    if (h.kind === 'directory') ids.push(name);
  }
  return ids.sort();
}

/** The stored run's folder; throws naming the stored runs when there is none. */
export async function openStoredRun(runId: string): Promise<OpfsStorage> {
  checkRunId(runId);
  const ids = await storedRunIds();
  if (!ids.includes(runId)) throw new Error(`no run "${runId}" stored in this browser (stored: ${ids.join(', ') || 'none'})`);
  return OpfsStorage.open(`${RUNS_ROOT}/${runId}`);
}

export async function deleteStoredRun(runId: string): Promise<void> {
  checkRunId(runId);
  await (await runsDir()).removeEntry(runId, { recursive: true }).catch((e: unknown) => {
    if (!(e instanceof DOMException && e.name === 'NotFoundError')) throw e;
  });
}

/**
 * Writes a run folder's files (paths relative to the folder, e.g. "checkpoints/step-4/state.json") as
 * runs/ID/. Refuses an existing id, files outside the layout's names, and a folder without
 * config.yaml or metrics.jsonl (the CLI writes both).
 */
export async function importRunFiles(runId: string, files: { path: string; bytes: Uint8Array }[]): Promise<OpfsStorage> {
  checkRunId(runId);
  if ((await storedRunIds()).includes(runId)) throw new Error(`a run "${runId}" is already stored; delete it first or rename the folder you import`);
  const paths = new Set(files.map((f) => f.path));
  for (const need of [CONFIG_FILE, METRICS_FILE]) {
    if (!paths.has(need)) throw new Error(`import ${runId}: no ${need} at the top of the folder (found: ${[...paths].slice(0, 6).join(', ') || 'nothing'}); pick the run folder itself (the one holding config.yaml)`);
  }
  for (const f of files) splitPath(f.path);
  const s = await OpfsStorage.open(`${RUNS_ROOT}/${runId}`);
  try {
    for (const f of files) await s.writeFile(f.path, f.bytes);
  } catch (e) {
    await deleteStoredRun(runId);
    throw e;
  }
  return s;
}

/**
 * The summary the Runs panel lists; `live` is the worker's status when the run trains here now,
 * `elsewhere` says another tab's worker holds its lock (lockRun).
 */
export async function summarize(runId: string, s: RunStorage, live: RunStatus | null, elsewhere = false): Promise<StoredRun> {
  const yaml = await readText(s, CONFIG_FILE);
  let cfg: { trainer?: unknown; model?: { path?: unknown; quant?: unknown }; data?: { env?: unknown }; train?: { steps?: unknown } } = {};
  let configError: string | null = null;
  try {
    cfg = (yaml ? parse(yaml) : {}) ?? {};
  } catch (e) {
    configError = `config.yaml: ${(e as Error).message.split('\n')[0]}`;
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  // The resolved config gives each trainer's defaults (quant, env); a config the parser refuses is summarised raw.
  let resolved: RunConfig | null = null;
  try {
    resolved = yaml && !configError ? parseConfig(yaml, CONFIG_FILE) : null;
  } catch { /* summarised from the raw YAML */ }
  const trainer = resolved?.trainer ?? str(cfg.trainer);
  const steps = lastStep((await readText(s, METRICS_FILE)) ?? '');
  const end = await readEnd(s);
  const lastCheckpoint = await newestCheckpoint(s);
  const finishedByFiles = (await s.exists('adapter')) || (await s.exists('model'));
  const state: StoredRun['state'] = elsewhere || (live && ['starting', 'running', 'paused', 'stopping'].includes(live.phase)) ? 'live'
    : end ? end.state : finishedByFiles ? 'finished' : 'cut-off';
  const total = typeof cfg.train?.steps === 'number' ? cfg.train.steps : null;
  return {
    runId, trainer, env: trainer === 'sft' ? null : resolved?.data.env ?? str(cfg.data?.env), model: resolved?.model.path ?? str(cfg.model?.path),
    quant: resolved?.model.quant ?? str(cfg.model?.quant), quantEmbeddings: resolved?.model.quant_embeddings ?? false,
    steps: live && state === 'live' ? Math.max(steps, live.step) : steps, totalSteps: live?.total || total, lastCheckpoint,
    state, message: configError ?? (elsewhere ? TRAINING_ELSEWHERE : end?.message ?? (live && state === 'live' ? live.phase : null)), endedAt: end?.at ?? null,
  };
}

async function readEnd(s: RunStorage): Promise<RunEndRecord | null> {
  const t = await readText(s, STATUS_FILE);
  if (!t) return null;
  try {
    return JSON.parse(t) as RunEndRecord;
  } catch {
    return null;
  }
}

/** The step of the last complete metrics.jsonl row (0 when none). */
function lastStep(text: string): number {
  const lines = text.split('\n').slice(0, -1);
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const row = JSON.parse(lines[i]) as { step?: unknown };
      if (typeof row.step === 'number') return row.step;
    } catch { /* a half-written line */ }
  }
  return 0;
}

/** The highest checkpoints/step-N holding state.json (every trainer), else an old SFT run's checkpoint/; null when none. */
async function newestCheckpoint(s: RunStorage): Promise<string | null> {
  const steps = (await s.list(CHECKPOINTS_DIR)).map((n) => /^step-(\d+)$/.exec(n)).filter((m) => m !== null).map((m) => Number(m[1])).sort((a, b) => b - a);
  for (const n of steps) if (await s.exists(`${checkpointPath(n)}/state.json`)) return checkpointPath(n);
  return (await s.exists(`${LEGACY_SFT_CHECKPOINT}/state.json`)) ? LEGACY_SFT_CHECKPOINT : null;
}

const LOCK_PREFIX = 'rl-studio/runs/';

/**
 * Holds the run's Web Lock (origin-wide: every tab and worker of this browser) until the returned
 * release is called, so a run training in one tab is listed live in the others and is neither
 * resumed nor deleted there. Throws when another holds it.
 */
export async function lockRun(runId: string): Promise<() => void> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return () => {};
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  const got = await new Promise<boolean>((resolve) => {
    void locks.request(LOCK_PREFIX + runId, { ifAvailable: true }, (lock) => {
      resolve(lock !== null);
      return lock ? held : undefined;
    });
  });
  if (!got) throw new Error(`run ${runId} is training in another tab of this browser; stop it there (or close that tab) first`);
  return release;
}

/** Ids of runs whose lock is held (by this worker or another tab's). */
export async function runsTrainingElsewhere(): Promise<Set<string>> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return new Set();
  const q = await locks.query();
  return new Set((q.held ?? []).map((l) => l.name ?? '').filter((n) => n.startsWith(LOCK_PREFIX)).map((n) => n.slice(LOCK_PREFIX.length)));
}

/** The run's data as the worker got it at the start (source.json), for a resume. */
export async function readSource(s: RunStorage): Promise<DatasetSource | null> {
  const t = await readText(s, SOURCE_FILE);
  if (!t) return null;
  const v = JSON.parse(t) as { dataset?: DatasetSource | null };
  return v.dataset ?? null;
}

export async function writeSource(s: RunStorage, dataset: DatasetSource | undefined): Promise<void> {
  await s.writeFile(SOURCE_FILE, JSON.stringify({ dataset: dataset ?? null }) + '\n');
}

/**
 * The data of a resumed run: the caller's, else the one noted at its start, else (a CLI run
 * imported) the shipped file named like config data.dataset; null for the story env.
 */
export function resumeDataset(given: DatasetSource | undefined, noted: DatasetSource | null, configDataset: string | null, trainer: string, env: string): DatasetSource | undefined {
  if (given) return given;
  if (noted) return noted;
  if (configDataset) return { shipped: configDataset.split('/').pop()! };
  if (trainer === 'sft') throw new Error('resume: the run names no data file (config.yaml data.dataset) and none was given; import the data with the run');
  void env;   // RL without a data file: the env's own tasks (story) or its shipped split, as at the start
  return undefined;
}
