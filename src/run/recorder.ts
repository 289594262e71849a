// The run-folder writer: a RunEmit (src/run/events.ts) that turns a loop's events into files
// through RunStorage: config.yaml at `started`, metrics.jsonl / rollouts.jsonl rows as they come
// (rollouts of a step in one append, before the step's checkpoint), checkpoint folders (the last
// N kept) and the export folder written atomically, and (opt-in) status.json when the run ends. The CLI and the engine worker both record with it, so every
// trainer's folder has the same files. Exercised by tests/unit/run/run-storage.test.ts and sft-cli / rl-grpo.
import { toJsonl } from '../rl/rollout-log';
import type { RunEmit } from './events';
import { CONFIG_FILE, METRICS_FILE, ROLLOUTS_FILE, STATUS_FILE } from './layout';
import type { RunStorage } from './storage';
import { pruneCheckpoints } from './run-folder';

export interface RecorderOptions {
  /** The run's config as YAML, written to config.yaml when the run starts. */
  configYaml?: string;
  /** Write status.json at the run's end (finished / cancelled / failed; removed when it starts again),
   * so a folder without it was cut off (the CLI and the engine worker both write it). */
  status?: boolean;
  /** Keep-last-N (config log.keep_checkpoints): after a checkpoint folder is complete, older
   * checkpoints/step-M beyond the newest N are removed (pruneCheckpoints). 0 or absent: keep all. */
  keepCheckpoints?: number;
}

/** status.json: how a run ended (STATUS_FILE). */
export interface RunEndRecord {
  state: 'finished' | 'cancelled' | 'failed';
  step: number;
  lastCheckpoint: string | null;
  message: string | null;
  /** ISO time of the end. */
  at: string;
}

export function recordRun(storage: RunStorage, opts: RecorderOptions = {}): RunEmit {
  let rollouts: unknown[] = [];
  const flush = async () => {
    if (!rollouts.length) return;
    const rows = rollouts;
    rollouts = [];
    await storage.append(ROLLOUTS_FILE, toJsonl(rows));
  };
  return async (e) => {
    if (e.kind === 'rollout') {
      rollouts.push(e.record);
      return;
    }
    await flush();
    switch (e.kind) {
      case 'started':
        if (opts.configYaml !== undefined) await storage.writeFile(CONFIG_FILE, opts.configYaml);
        if (opts.status) await storage.remove(STATUS_FILE);
        break;
      case 'metrics':
        await storage.append(METRICS_FILE, toJsonl([e.row]));
        break;
      case 'checkpoint':
        if (!e.files) throw new Error(`recorder: the checkpoint event of step ${e.step} carries no files`);
        await storage.writeFolder(e.path, e.files);
        if (opts.keepCheckpoints) await pruneCheckpoints(storage, opts.keepCheckpoints, e.step);
        break;
      case 'finished':
        if (e.export?.files) await storage.writeFolder(e.export.path, e.export.files);
        if (opts.status) await writeEnd(storage, { state: 'finished', step: e.step, lastCheckpoint: null, message: null });
        break;
      case 'cancelled':
        if (e.export?.files) await storage.writeFolder(e.export.path, e.export.files);
        if (opts.status) await writeEnd(storage, { state: 'cancelled', step: e.step, lastCheckpoint: e.lastCheckpoint, message: null });
        break;
      case 'failed':
        if (opts.status) await writeEnd(storage, { state: 'failed', step: e.step, lastCheckpoint: e.lastCheckpoint, message: e.message });
        break;
      default:
        break;
    }
  };
}

const writeEnd = (s: RunStorage, r: Omit<RunEndRecord, 'at'>) => s.writeFile(STATUS_FILE, JSON.stringify({ ...r, at: new Date().toISOString() }) + '\n');
