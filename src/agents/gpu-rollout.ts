// Agent rollouts on a DecoderEngine (our GPU engine, or onnxruntime-web): one stepper with a slot per episode (one slot in sync
// mode), the chat template's turn boundaries, the registry's tools; runs loop.ts runEpisodes and
// frees the session. Exercised by tests/unit/agents/agent-gpu.test.ts and agent-python.test.ts.
import type { GpuRuntime } from '../gpu/runtime';
import type { DecoderEngine } from '../model/engine';
import { gpuEngine } from '../model/gpu/engine';
import type { GpuModel } from '../model/gpu/model';
import type { Tokenizer } from '../model/tokenizer';
import type { ToolRegistry } from '../tools/registry';
import type { ToolSpec } from './chat-template';
import { resolveAgentConfig, type AgentLoopConfig } from './agent-config';
import { runEpisodes, type AgentHooks, type EpisodeSpec, type RolloutBatch } from './loop';
import { TurnRenderer } from './turn-render';

export interface EngineRolloutArgs {
  engine: DecoderEngine;
  tokenizer: Tokenizer;
  registry: ToolRegistry;
  prompts: EpisodeSpec[];
  /** maxTokens is capped at the model's maxPositions. */
  config?: Partial<AgentLoopConfig>;
  hooks?: AgentHooks;
  signal?: AbortSignal;
  /** Chat template override; null: the plain fallback; default: the tokenizer's. */
  template?: string | null;
  /** False: the plain template does not list the tools (TurnRendererOptions.listTools). */
  listTools?: boolean;
}

export interface AgentRolloutArgs extends Omit<EngineRolloutArgs, 'engine'> {
  rt: GpuRuntime;
  model: GpuModel;
}

export async function runAgentRollout(a: AgentRolloutArgs): Promise<RolloutBatch> {
  return runEngineRollout({ ...a, engine: gpuEngine(a.rt, a.model) });
}

/** The same on any DecoderEngine (ours, or onnxruntime-web through src/ort/engine.ts). */
export async function runEngineRollout(a: EngineRolloutArgs): Promise<RolloutBatch> {
  const cfg = resolveAgentConfig(a.config);
  const maxTokens = Math.min(cfg.maxTokens, a.engine.maxPositions);
  const slots = cfg.mode === 'sync' ? 1 : Math.max(1, a.prompts.length * cfg.samplesPerPrompt);
  const renderer = rolloutRenderer(a.tokenizer, a.registry, { template: a.template, listTools: a.listTools, eosTokenIds: a.engine.eosTokenIds });
  const session = a.engine.open(slots, maxTokens);
  try {
    return await runEpisodes({ stepper: session, renderer, registry: a.registry, prompts: a.prompts, config: { ...cfg, maxTokens }, hooks: a.hooks, signal: a.signal });
  } finally {
    session.free();
  }
}

/** The turn renderer of a rollout: the template choice, the registry's tools, the engine's EOS ids (the Datasets preview builds it here too). */
export function rolloutRenderer(tokenizer: Tokenizer, registry: ToolRegistry, o: { template?: string | null; listTools?: boolean; eosTokenIds?: readonly number[] }): TurnRenderer {
  return new TurnRenderer(tokenizer, { template: o.template, listTools: o.listTools, tools: toolSpecs(registry), modelEosTokenIds: [...(o.eosTokenIds ?? [])] });
}

/** The registry's tools as chat templates take them. */
export function toolSpecs(registry: ToolRegistry): ToolSpec[] {
  return registry.tools().map((t) => ({ type: 'function', function: { ...t.function, parameters: { ...t.function.parameters } } }));
}
