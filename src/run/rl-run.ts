// The training loop over steps for the RL trainers: sample B tasks (seeded TaskSampler,
// resumable), run one grpo / rejection / reward-weighted step, and report through RunEvent
// (src/run/events.ts): started, then per step the metrics row, its episodes (rollout), a warning
// when the loss is 0 and why, progress; a checkpoint every N steps, on request and at the end; the
// PEFT adapter with `finished`; `cancelled` on stop (with the adapter trained so far), `failed` (naming the last checkpoint) on an
// error. Writing files is the recorder's job (src/run/recorder.ts). Tested by tests/unit/rl/rl-grpo.test.ts.
import type { Task } from '../data/schemas';
import { TaskSampler, type SamplerPosition } from '../data/sampling';
import { modelShape, saveTrainState, TRAIN_STATE_VERSION, type TrainState } from '../train/checkpoint';
import { exportPeftAdapter } from '../train/peft-export';
import type { RlConfig } from '../rl/config-validate';
import { fullModelFiles } from '../rl/policy-setup';
import { grpoStep, type GrpoContext, type StepOutput } from '../rl/grpo-trainer';
import { rolloutRecord } from '../rl/rollout-log';
import { rwStep } from '../rl/rw-trainer';
import { ppoStep } from '../rl/ppo-trainer';
import { VALUE_HEAD_FILE } from '../train/value-head-params';
import type { RunControl } from '../train/run-control';
import type { MemoryPlan } from '../train/memory-plan';
import type { MetricsRow, RunEmit, RunFiles } from './events';
import { failureMessage } from './failure';
import { checkpointPath } from './layout';

export interface RunArgs {
  ctx: GrpoContext;
  tasks: Task[];
  /** Receives every event, awaited in order (the recorder writes files on it). */
  emit: RunEmit;
  /** Names the run in `started` (the CLI: the run folder; the worker: its run id). */
  runId?: string;
  /** The memory plan reported in `started`, when the caller made one. */
  plan?: MemoryPlan | null;
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

export async function checkpointFiles(ctx: GrpoContext, step: number, sampler: SamplerPosition, numTokens: number, last: Record<string, number>): Promise<RunFiles> {
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

/** LoRA: the PEFT adapter; full mode: the trained model as a Hugging Face folder. */
async function exportOf(ctx: GrpoContext, baseModelName: string): Promise<{ path: string; files: RunFiles }> {
  return ctx.trainer.trainable.mode === 'lora'
    ? { path: 'adapter', files: await adapterFiles(ctx, baseModelName) }
    : { path: 'model', files: await fullModelFiles(ctx.trainer, ctx.tokenizer) };
}

/** The PEFT adapter's files, with the value head beside it when the trainer has one (trainer: ppo). */
async function adapterFiles(ctx: GrpoContext, baseModelName: string): Promise<RunFiles> {
  const files = exportPeftAdapter(await ctx.trainer.exportLora(), ctx.model.cfg, { baseModelName });
  if (ctx.trainer.valueHead) files.set(VALUE_HEAD_FILE, await ctx.trainer.valueHead.file());
  return files;
}

export async function runTraining(a: RunArgs): Promise<RunResult> {
  const { ctx, emit } = a;
  const cfg: RlConfig = ctx.cfg;
  const total = cfg.train.steps;
  const sampler = new TaskSampler(a.tasks, cfg.train.seed, a.start?.sampler);
  let numTokens = a.start?.numTokens ?? 0;
  const history: Record<string, number>[] = [];
  const t0 = performance.now();
  const first = a.start?.step ?? 0;
  let saved = first, last: Record<string, number> = {}, done = first;
  let lastCheckpoint = first > 0 ? checkpointPath(first) : null;
  const save = async (step: number) => {
    if (saved === step) return;
    const path = checkpointPath(step);
    await emit({ kind: 'checkpoint', step, path, files: await checkpointFiles(ctx, step, sampler.position, numTokens, last) });
    saved = step;
    lastCheckpoint = path;
  };
  await emit({ kind: 'started', runId: a.runId ?? '', trainer: cfg.trainer, plan: a.plan ?? null, totalSteps: total, startStep: first });
  try {
    for (let step = first; step < total; step++) {
      if (a.control && (await a.control.beforeStep()) === 'stopping') {
        await save(step);
        // A stop exports what was trained so far, as the end of the run does (the Export panel and Playground read it).
        await emit({ kind: 'cancelled', step, lastCheckpoint, export: step > first ? await exportOf(ctx, a.baseModelName) : null });
        return { history, steps: step - first, stopped: true };
      }
      const tasks = sampler.next(cfg.rollout.batch_size);
      const out: StepOutput = cfg.trainer === 'grpo' ? await grpoStep(ctx, tasks, step) : cfg.trainer === 'ppo' ? await ppoStep(ctx, tasks, step) : await rwStep(ctx, tasks, step);
      numTokens += out.rollout.episodes.reduce((s, e) => s + e.tokens.length, 0);
      const row: MetricsRow = { step: step + 1, ...out.metrics, num_tokens: numTokens };
      last = row;
      done = step + 1;
      history.push(row);
      await emit({ kind: 'metrics', row });
      if (cfg.log.rollouts) {
        for (const [i, e] of out.rollout.episodes.entries()) {
          await emit({ kind: 'rollout', record: rolloutRecord(step + 1, e, out.rollout.rewards[i], out.advantages[i], tasks[e.promptIndex].task_id) });
        }
      }
      if (out.note) await emit({ kind: 'warning', step: step + 1, message: out.note });
      const elapsedMs = performance.now() - t0;
      await emit({ kind: 'progress', step: step + 1, total, elapsedMs, etaMs: Math.max(0, (total - step - 1) * elapsedMs / (step + 1 - first)) });
      await ctx.hooks.on_step_end({ step: step + 1, metrics: row });
      const every = cfg.log.checkpoint_every;
      const asked = a.control?.takeCheckpointRequest() ?? false;
      if (asked || (every > 0 && (step + 1) % every === 0) || step + 1 === total) await save(step + 1);
    }
    await emit({ kind: 'finished', step: done, export: await exportOf(ctx, a.baseModelName) });
    return { history, steps: done - first, stopped: false };
  } catch (e) {
    await emit({ kind: 'failed', step: done, message: await failureMessage(e, ctx.rt), lastCheckpoint });
    throw e;
  }
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
