// Puts a stored run folder in order for a resume, the same way for the CLI (`sft --resume`,
// `train --resume`: src/cli/commands/sft.ts, src/run/rl-node-run.ts) and the engine worker
// (src/workers/engine/runs.ts): the newest complete checkpoint recovered under its final name,
// the logs cut to its step, and what the loop needs to continue from it.
// Exercised by tests/unit/rl/rl-resume.test.ts, tests/unit/cli/run-kill.test.ts and tests/e2e/studio-runs.spec.ts.
import type { ModelConfig } from '../model/types';
import { resumePoint } from './rl-run';
import type { SamplerPosition } from '../data/sampling';
import type { TrainState } from '../train/checkpoint';
import { cutJsonl, recoverCheckpoint, rlSlots, sftSlots } from './run-folder';
import { METRICS_FILE, ROLLOUTS_FILE } from './layout';
import type { RunStorage } from './storage';

export interface SftResume {
  /** The checkpoint's state; null when the folder has none yet (the run starts over). */
  state: TrainState | null;
  /** Where it was read (storage.where), for messages. */
  from: string | null;
  /** metrics.jsonl rows dropped past it. */
  cut: number;
}

/** SFT: checkpoint/ recovered, metrics.jsonl cut to its step. */
export async function prepareSftResume(s: RunStorage, cfg: ModelConfig, log: (line: string) => void): Promise<SftResume> {
  const found = await recoverCheckpoint(s, await sftSlots(s), cfg, (st) => st.step, log);
  const cut = await cutJsonl(s, METRICS_FILE, found?.step ?? 0);
  return { state: found?.state ?? null, from: found ? s.where(found.dir) : null, cut };
}

/** What an SFT checkpoint remembers of its data: the file it read and the longest example. */
export function savedSftData(state: TrainState | null): { file?: string; maxLength?: number } {
  const saved = state?.config as { data?: { file?: string }; maxLength?: number } | undefined;
  return { file: saved?.data?.file, maxLength: saved?.maxLength };
}

export interface RlResume {
  state: TrainState | null;
  from: string | null;
  /** Where runTraining continues (null: from step 0). */
  start: { step: number; sampler: SamplerPosition; numTokens: number } | null;
  /** metrics.jsonl + rollouts.jsonl rows dropped past it. */
  cut: number;
}

/** RL: the newest checkpoints/step-N recovered, metrics.jsonl and rollouts.jsonl cut to its step. */
export async function prepareRlResume(s: RunStorage, cfg: ModelConfig, log: (line: string) => void): Promise<RlResume> {
  const found = await recoverCheckpoint(s, await rlSlots(s), cfg, (x) => resumePoint(x).step, log);
  const step = found?.step ?? 0;
  const cut = (await cutJsonl(s, METRICS_FILE, step)) + (await cutJsonl(s, ROLLOUTS_FILE, step));
  return { state: found?.state ?? null, from: found ? s.where(found.dir) : null, start: found ? resumePoint(found.state) : null, cut };
}
