// Collecting scored episodes for any RL trainer (GRPO, rejection sampling, eval): an environment
// rollout (prompts, tools, per-turn hook) through the agent loop on a DecoderEngine (ours by default), then the env's
// reward breakdowns, with the run's hooks around it. Engine-only (no files). Exercised by
// tests/unit/rl/rl-grpo.test.ts and tests/unit/ort/ort-engine.test.ts.
import type { TemplateChoice } from '../agents/chat-template';
import type { AgentLoopConfig } from '../agents/agent-config';
import type { EpisodeResult } from '../agents/episode-tokens';
import { runEngineRollout } from '../agents/gpu-rollout';
import type { RolloutStats } from '../agents/stats';
import type { Task } from '../data/schemas';
import { envRollout } from '../envs/rollout';
import type { EpisodeReward } from '../envs/reward';
import type { Environment } from '../envs/types';
import type { GpuRuntime } from '../gpu/runtime';
import type { DecoderEngine } from '../model/engine';
import { gpuEngine } from '../model/gpu/engine';
import type { GpuModel } from '../model/gpu/model';
import type { Tokenizer } from '../model/tokenizer';
import { mixSeed } from '../util/rng';
import type { RlConfig } from './config-validate';
import type { RlHooks } from './hooks';

/** What collecting rollouts needs besides the engine. */
export interface RolloutBase {
  cfg: RlConfig;
  tokenizer: Tokenizer;
  env: Environment<Task>;
  /** The chat template and whether the plain one lists the tools (templateChoice of model.template). */
  chat: TemplateChoice;
  hooks: Required<RlHooks>;
  signal?: AbortSignal;
}

/** What every trainer step needs besides the trainer itself: our GPU engine (trainers update its weights). */
export interface RolloutContext extends RolloutBase {
  rt: GpuRuntime;
  model: GpuModel;
}

/** Rollouts on any DecoderEngine (evaluation and the playground may run on onnxruntime-web). */
export interface EngineRolloutContext extends RolloutBase {
  engine: DecoderEngine;
}

export type AnyRolloutContext = RolloutContext | EngineRolloutContext;

export function engineOf(ctx: AnyRolloutContext): DecoderEngine {
  return 'engine' in ctx ? ctx.engine : gpuEngine(ctx.rt, ctx.model);
}

export interface ScoredRollout {
  tasks: Task[];
  episodes: EpisodeResult[];
  rewards: EpisodeReward[];
  stats: RolloutStats;
  rolloutMs: number;
  rewardMs: number;
}

/** The agent loop's config from the run config (G samples per prompt, this step's seed). */
export function agentConfig(cfg: RlConfig, G: number, step: number, temperature = cfg.rollout.temperature): Partial<AgentLoopConfig> {
  const r = cfg.rollout;
  return {
    mode: r.mode, samplesPerPrompt: G, maxTurns: r.max_turns, maxTokens: r.max_tokens, maxTokensPerTurn: r.max_new_tokens,
    toolResponseMaxTokens: r.tool_response_max_tokens, toolTimeoutMs: r.tool_timeout_ms,
    temperature, topK: r.top_k, topP: r.top_p, seed: mixSeed(cfg.train.seed, step) >>> 0, episodeIdPrefix: `s${step}`,
  };
}

/** B tasks x G episodes, scored; hooks on_rollout_start / on_rollout_end run around it. */
export async function collectRollouts(ctx: AnyRolloutContext, tasks: Task[], step: number, opts: { G?: number; temperature?: number } = {}): Promise<ScoredRollout> {
  const G = opts.G ?? ctx.cfg.rollout.group_size;
  await ctx.hooks.on_rollout_start({ step, tasks });
  const er = envRollout(ctx.env, tasks, G);
  const prefill = ctx.cfg.rollout.prefill;
  const t0 = performance.now();
  // The adapter is fixed while the batch is sampled: our engine decodes with it merged into the
  // weights (GpuModel.mergeLora; not on NF4 or large models), the separate path again after.
  const merged = 'model' in ctx && (await ctx.model.mergeLora());
  let batch: Awaited<ReturnType<typeof runEngineRollout>>;
  try {
    batch = await runEngineRollout({
      engine: engineOf(ctx), tokenizer: ctx.tokenizer, registry: er.registry,
      prompts: er.prompts.map((p) => (prefill ? { ...p, prefill } : p)),
      config: agentConfig(ctx.cfg, G, step, opts.temperature), hooks: er.hooks, signal: ctx.signal, ...ctx.chat,
    });
  } finally {
    if (merged) ctx.model.unmergeLora();
  }
  const t1 = performance.now();
  const info = { step, tasks, episodes: batch.episodes, rewards: await er.rewards(batch.episodes) };
  await ctx.hooks.on_rollout_end(info);
  return { tasks, episodes: batch.episodes, rewards: info.rewards, stats: batch.stats, rolloutMs: t1 - t0, rewardMs: performance.now() - t1 };
}

/** The per-batch metrics every trainer logs: completions/*, tools/*, num_turns/*, perf/ rollout figures. */
export function rolloutMetrics(r: ScoredRollout): Record<string, number> {
  const lens = r.episodes.map((e) => e.mask.reduce<number>((a, m) => a + m, 0));
  const s = r.stats;
  return {
    'completions/mean_length': lens.reduce((a, b) => a + b, 0) / Math.max(1, lens.length),
    'completions/max_length': lens.length ? Math.max(...lens) : 0,
    'completions/clipped_ratio': s['completions/clipped_ratio'],
    'tools/call_frequency': s['tools/call_frequency'],
    'tools/failure_frequency': s['tools/failure_frequency'],
    'num_turns/mean': s['num_turns/mean'],
    'num_turns/max': s['num_turns/max'],
    'perf/tokens_per_s': s['perf/tokens_per_s'],
    'perf/rollout_time': r.rolloutMs / 1000,
    'perf/reward_time': r.rewardMs / 1000,
    'perf/gpu_idle_waiting_tools_frac': s['perf/gpu_idle_fraction'],
    'perf/tool_time': r.episodes.reduce((a, e) => a + e.toolCalls.reduce((b, c) => b + c.latencyMs, 0), 0) / 1000,
  };
}

/** Reward part values per part name over the episodes (NaN where an episode lacks the part). */
export function partsByName(rewards: EpisodeReward[]): Record<string, number[]> {
  const names = [...new Set(rewards.flatMap((r) => Object.keys(r.parts)))];
  return Object.fromEntries(names.map((n) => [n, rewards.map((r) => r.parts[n] ?? NaN)]));
}
