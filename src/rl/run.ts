// The training loop over steps, for every trainer kind: sample B tasks (seeded TaskSampler,
// resumable), run one grpo / rejection / reward-weighted step, log the metrics row, the episodes
// and a progress line (with why a loss is 0), call on_step_end, checkpoint every N steps and at
// the end, then export the PEFT adapter. Files go through a RunSink (Node: node-run.ts; the
// browser: its own). Tested by tests/unit/rl/rl-grpo.test.ts (two steps end to end).
import type { Task } from '../data/schemas';
import { TaskSampler, type SamplerPosition } from '../data/sampling';
import { modelShape, saveTrainState, TRAIN_STATE_VERSION, type TrainState } from '../train/checkpoint';
import { exportPeftAdapter } from '../train/peft-export';
import { fullModelFiles } from './policy-setup';
import type { RlConfig } from './config-validate';
import { grpoStep, type GrpoContext, type StepOutput } from './grpo-trainer';
import { rolloutRecord, type RolloutRecord } from './rollout-log';
import { rwStep } from './rw-trainer';
import { ppoStep } from './ppo-trainer';
import { VALUE_HEAD_FILE } from '../train/value-head-params';
import type { RunControl } from '../train/run-control';

export type Files = Map<string, Uint8Array>;

export interface RunSink {
  log(line: string): void;
  metrics(row: Record<string, number>): void | Promise<void>;
  rollouts(rows: RolloutRecord[]): void | Promise<void>;
  /** A checkpoint folder's files (state.json, state.safetensors) after `step` steps. */
  checkpoint(step: number, files: Files): Promise<void>;
  /** The final PEFT adapter (adapter_config.json, adapter_model.safetensors). */
  adapter(files: Files): Promise<void>;
  /** Full mode: the trained model as a Hugging Face folder (config.json, model.safetensors, tokenizer). */
  model?(files: Files): Promise<void>;
}

export interface RunArgs {
  ctx: GrpoContext;
  tasks: Task[];
  sink: RunSink;
  /** Recorded as base_model_name_or_path in the adapter. */
  baseModelName: string;
  /** Resume: the first step to run and the sampler's position (from a checkpoint). */
  start?: { step: number; sampler: SamplerPosition; numTokens: number };
  /** Pause / resume / stop (after a checkpoint) / checkpoint now, checked between steps. */
  control?: RunControl;
}

export interface RunResult {
  history: Record<string, number>[];
  steps: number;
  /** The run ended on control.stop() before its last step. */
  stopped: boolean;
}

const fmt = (v: number | undefined, d = 3) => (v === undefined || !Number.isFinite(v) ? '-' : Math.abs(v) >= 1e-3 || v === 0 ? v.toFixed(d) : v.toExponential(1));

/** One progress line: step, bar, reward, loss, kl, grad norm, lr, zero-std share, timing. */
export function progressLine(step: number, total: number, m: Record<string, number>, secsPerStep: number, note: string | null): string {
  const w = 20, done = Math.round((w * step) / total);
  const eta = Math.max(0, (total - step) * secsPerStep);
  const kl = m.kl !== undefined ? ` kl ${fmt(m.kl, 4)}` : '';
  return `step ${step}/${total} [${'#'.repeat(done)}${'-'.repeat(w - done)}] reward ${fmt(m.reward)} ±${fmt(m.reward_std)} loss ${fmt(m.loss, 4)}${kl} grad ${fmt(m.grad_norm)} lr ${fmt(m.learning_rate)} zero-std ${fmt(m.frac_reward_zero_std, 2)} len ${fmt(m['completions/mean_length'], 1)} ${fmt(m.step_time, 1)}s eta ${Math.round(eta)}s${note ? `\n  ${note}` : ''}`;
}

export async function checkpointFiles(ctx: GrpoContext, step: number, sampler: SamplerPosition, numTokens: number, last: Record<string, number>): Promise<Files> {
  const { trainer, cfg, model } = ctx;
  const st = await trainer.state();
  const lora = trainer.trainable.mode === 'lora' ? trainer.trainable.params.config : undefined;
  const state: TrainState = {
    version: TRAIN_STATE_VERSION, mode: trainer.trainable.mode,
    config: { rl: cfg, rl_step: step, sampler, num_tokens: numTokens } as unknown as Record<string, unknown>,
    step: trainer.optimizer.step, schedule: { step: trainer.optimizer.step, lr: trainer.optimizer.lr },
    rng: { data: { seed: cfg.train.seed, epoch: sampler.epoch, position: sampler.index }, loraInitSeed: cfg.lora.init_seed, samplerSeed: cfg.train.seed },
    ...(lora ? { lora } : {}), model: modelShape(model.cfg), params: st.params, adam: st.adam, metrics: [last],
  };
  return saveTrainState(state);
}

export async function runTraining(a: RunArgs): Promise<RunResult> {
  const { ctx, sink } = a;
  const cfg: RlConfig = ctx.cfg;
  const total = cfg.train.steps;
  const sampler = new TaskSampler(a.tasks, cfg.train.seed, a.start?.sampler);
  let numTokens = a.start?.numTokens ?? 0;
  const history: Record<string, number>[] = [];
  const t0 = performance.now();
  const first = a.start?.step ?? 0;
  let saved = first, last: Record<string, number> = {}, done = first;
  const save = async (step: number) => {
    if (saved === step) return;
    await sink.checkpoint(step, await checkpointFiles(ctx, step, sampler.position, numTokens, last));
    saved = step;
  };
  for (let step = first; step < total; step++) {
    if (a.control && (await a.control.beforeStep()) === 'stopping') {
      await save(step);
      return { history, steps: step - first, stopped: true };
    }
    const tasks = sampler.next(cfg.rollout.batch_size);
    const out: StepOutput = cfg.trainer === 'grpo' ? await grpoStep(ctx, tasks, step) : cfg.trainer === 'ppo' ? await ppoStep(ctx, tasks, step) : await rwStep(ctx, tasks, step);
    numTokens += out.rollout.episodes.reduce((s, e) => s + e.tokens.length, 0);
    const row = { step: step + 1, ...out.metrics, num_tokens: numTokens };
    last = row;
    done = step + 1;
    history.push(row);
    await sink.metrics(row);
    if (cfg.log.rollouts) {
      await sink.rollouts(out.rollout.episodes.map((e, i) => rolloutRecord(step + 1, e, out.rollout.rewards[i], out.advantages[i], tasks[e.promptIndex].task_id)));
    }
    const secs = (performance.now() - t0) / 1000 / (step + 1 - first);
    sink.log(progressLine(step + 1, total, row, secs, out.note));
    for (const e of out.rollout.episodes.slice(0, cfg.log.print_examples)) {
      sink.log(`  example (reward ${fmt(out.rollout.rewards[e.index].return)}): ${JSON.stringify(e.finalText.slice(0, 160))}`);
    }
    await ctx.hooks.on_step_end({ step: step + 1, metrics: row });
    const every = cfg.log.checkpoint_every;
    const asked = a.control?.takeCheckpointRequest() ?? false;
    if (asked || (every > 0 && (step + 1) % every === 0) || step + 1 === total) await save(step + 1);
  }
  if (ctx.trainer.trainable.mode === 'lora') {
    const files = exportPeftAdapter(await ctx.trainer.exportLora(), ctx.model.cfg, { baseModelName: a.baseModelName });
    if (ctx.trainer.valueHead) files.set(VALUE_HEAD_FILE, await ctx.trainer.valueHead.file());   // trainer: ppo
    await sink.adapter(files);
  } else if (sink.model) await sink.model(await fullModelFiles(ctx.trainer, ctx.tokenizer));
  return { history, steps: done - first, stopped: false };
}

/** What a checkpoint's config block holds for resuming (written by checkpointFiles). */
export function resumePoint(state: TrainState): { step: number; sampler: SamplerPosition; numTokens: number } {
  const c = state.config as { rl_step?: unknown; sampler?: unknown; num_tokens?: unknown };
  const s = c.sampler as SamplerPosition | undefined;
  if (typeof c.rl_step !== 'number' || !s || typeof s.epoch !== 'number' || typeof s.index !== 'number') {
    throw new Error('this checkpoint was not written by `train` (no rl_step / sampler in state.json config); resume it with the command that wrote it');
  }
  return { step: c.rl_step, sampler: { epoch: s.epoch, index: s.index }, numTokens: typeof c.num_tokens === 'number' ? c.num_tokens : 0 };
}
