// Trainer <-> TrainState (checkpoint.ts): the whole state of a run in checkpoint naming (trained
// tensors and AdamW moments under PEFT keys in LoRA mode or Hugging Face names in full mode, t of
// the bias correction, step and schedule position, data cursor and seeds, the run's config and
// metrics tail), and back: the Trainer params that re-create the trained tensors, then an exact
// restore. Tested by tests/unit/train/sft-resume.test.ts (resume == continuous, bit for bit).
import type { GpuRuntime } from '../gpu/runtime';
import { lr_at } from '../reference/adamw';
import type { LoraConfig, ModelConfig } from '../model/types';
import { loraFromParams, modelShape, TRAIN_STATE_VERSION, type TrainRngState, type TrainState } from './checkpoint';
import type { Trainer, TrainerConfig } from './trainer';

/** What the run adds to the trainer's tensors. */
export interface RunInfo {
  /** The run's config as JSON (stored as TrainState.config). */
  config: Record<string, unknown>;
  rng: TrainRngState;
  /** The logged metrics (a tail); non-finite values are stored as null. */
  metrics?: Record<string, number | null>[];
}

/** Reads the trainer's tensors and moments back and assembles the TrainState of a checkpoint. */
export async function captureTrainState(trainer: Trainer, info: RunInfo): Promise<TrainState> {
  const st = await trainer.state();
  const opt = trainer.optimizer;
  const step = opt.step;
  const t = trainer.trainable;
  return {
    version: TRAIN_STATE_VERSION,
    mode: t.mode,
    config: info.config,
    step,
    schedule: { step, lr: step > 0 ? lr_at(opt.config.schedule, step - 1) : 0 },
    rng: info.rng,
    ...(t.mode === 'lora' ? { lora: { ...t.params.config, targets: [...t.params.config.targets] } } : {}),
    model: modelShape(trainer.model.cfg),
    params: st.params,
    adam: st.adam,
    metrics: info.metrics ?? [],
  };
}

/** Trainer.create params that hold the state's trained tensors (restoreTrainState then adds the moments). */
export function trainerParamsOf(state: TrainState, cfg: ModelConfig): TrainerConfig['params'] {
  if (state.mode === 'full') return { mode: 'full' };
  if (!state.lora) throw new Error('trainerParamsOf: a LoRA checkpoint without its adapter config (state.json "lora")');
  return { mode: 'lora', adapter: loraFromParams(state.params, state.lora, cfg) };
}

const sameLora = (a: LoraConfig, b: LoraConfig) =>
  a.rank === b.rank && a.alpha === b.alpha && a.useRslora === b.useRslora && a.targets.length === b.targets.length && a.targets.every((p) => b.targets.includes(p));

/**
 * Writes a state into a trainer built for it (same mode, same adapter shape): parameters, AdamW
 * moments and t. The schedule follows from t (lr_at(schedule, t)). Errors say what differs.
 * Submits first: Trainer.create records the moments' zero fill in the open command encoder, and
 * the queue writes of the restore would otherwise land before it (and be zeroed).
 */
export function restoreTrainState(rt: GpuRuntime, trainer: Trainer, state: TrainState): void {
  const t = trainer.trainable;
  if (t.mode !== state.mode) throw new Error(`restoreTrainState: the checkpoint trains ${state.mode === 'lora' ? 'a LoRA adapter' : 'every weight'} but this trainer is in ${t.mode} mode; create it with trainerParamsOf(state)`);
  if (t.mode === 'lora' && state.lora && !sameLora(t.params.config, state.lora)) {
    throw new Error(`restoreTrainState: the checkpoint's adapter is r=${state.lora.rank} alpha=${state.lora.alpha} on ${state.lora.targets.join(',')}, ` +
      `the trainer's r=${t.params.config.rank} alpha=${t.params.config.alpha} on ${t.params.config.targets.join(',')}`);
  }
  rt.submit();
  trainer.restore({ params: state.params, adam: state.adam });
}
