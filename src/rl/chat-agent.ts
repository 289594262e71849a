// One conversation with a policy through the agent loop, as `npm run cli -- chat` and the studio's
// Playground (engine worker `chat` request) hold it: the config's environment gives the tools and
// the system prompt, each reply streams its turns to a TurnSink and reports each turn's tool
// results, decoding greedy or sampled with a seed. Exercised by tests/unit/cli/cli-chat.test.ts
// and tests/e2e/studio-playground.spec.ts.
import { templateChoice, type ChatMessage } from '../agents/chat-template';
import type { EpisodeResult } from '../agents/episode-tokens';
import { toolSpecs } from '../agents/gpu-rollout';
import { runEpisodes, type ToolResult } from '../agents/loop';
import { StreamingStepper, type TurnSink } from '../agents/streaming-stepper';
import { TurnRenderer } from '../agents/turn-render';
import type { Task } from '../data/schemas';
import type { EnvServices } from '../envs';
import type { Environment } from '../envs/types';
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuModel } from '../model/gpu/model';
import { DecodeSession } from '../model/gpu/session';
import type { Tokenizer } from '../model/tokenizer';
import { ToolRegistry } from '../tools/registry';
import type { RlConfig } from './config-validate';
import { buildEnvironment } from './env-factory';

/** How one reply is decoded. */
export interface ChatSettings {
  /** 0 = greedy. */
  temperature: number;
  /** Sampling seed of the reply. */
  seed: number;
  /** Tokens per assistant turn. */
  maxNewTokens: number;
  /** Assistant turns per reply, tool calls included. */
  maxTurns: number;
}

export interface ChatPolicy {
  rt: GpuRuntime;
  model: GpuModel;
  tokenizer: Tokenizer;
}

export class ChatAgent {
  readonly registry = new ToolRegistry();
  readonly renderer: TurnRenderer;
  readonly stepper: StreamingStepper;
  /** Context of a conversation: the model's max positions. */
  readonly maxTokens: number;
  private readonly env: Environment<Task>;
  private readonly session: DecodeSession;

  /** `sink` receives every assistant turn's text as it is sampled. */
  constructor(private readonly cfg: RlConfig, services: EnvServices, p: ChatPolicy, sink: TurnSink) {
    this.env = buildEnvironment(cfg, services);
    for (const t of this.env.tools()) this.registry.register(t);
    const { template, listTools } = templateChoice(cfg.model.template);
    this.renderer = new TurnRenderer(p.tokenizer, { template, listTools, tools: toolSpecs(this.registry), modelEosTokenIds: p.model.cfg.eosTokenIds });
    this.maxTokens = p.model.cfg.maxPositions;
    this.session = new DecodeSession(p.rt, p.model, 1, this.maxTokens);
    this.stepper = new StreamingStepper(this.session, p.tokenizer, new Set(this.renderer.defaultStopIds), sink);
  }

  toolNames(): string[] {
    return this.registry.tools().map((t) => t.function.name);
  }

  /** The system message(s) the environment opens `task` with (its tools' descriptions included). */
  systemMessages(task: Task): ChatMessage[] {
    return this.env.initialMessages(task).filter((m) => m.role === 'system');
  }

  /**
   * One reply to `messages` (system first): the episode with the whole transcript; `onTools` after
   * each turn's calls ran. `prefill` is forced at the start of the reply (mask as in training).
   */
  async reply(messages: ChatMessage[], s: ChatSettings, episodeId: string, onTools?: (results: ToolResult[]) => void, prefill?: string): Promise<EpisodeResult> {
    this.stepper.prefill = prefill ? this.renderer.encodeText(prefill) : [];
    const batch = await runEpisodes({
      stepper: this.stepper, renderer: this.renderer, registry: this.registry, prompts: [{ messages, ...(prefill ? { prefill } : {}) }],
      config: {
        mode: 'sync', maxTurns: s.maxTurns, maxTokens: this.maxTokens, maxTokensPerTurn: s.maxNewTokens, temperature: s.temperature, seed: s.seed >>> 0,
        toolResponseMaxTokens: this.cfg.rollout.tool_response_max_tokens, toolTimeoutMs: this.cfg.rollout.tool_timeout_ms, episodeIdPrefix: episodeId,
      },
      hooks: {
        onTurn: (_i, _text, results) => {
          this.stepper.endTurn();
          onTools?.(results);
        },
      },
    });
    this.stepper.endTurn();
    return batch.episodes[0];
  }

  free(): void {
    this.session.free();
  }
}
