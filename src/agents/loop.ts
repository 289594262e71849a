// The multi-turn agent loop (the agents layer's spine): B*G episodes share one policy stepper,
// one slot each; an episode generates until a stop id, its tool calls run through the registry
// while the other slots keep stepping (async), and the rendered tool responses are appended to
// its live token sequence as mask-0 tokens — never re-tokenizing the history (so are the
// environment's feedback messages, e.g. failing tests before a retry). Sync mode runs one
// episode at a time. Measures the time the GPU sat idle because every live episode waited on a
// tool. The stepper is a DecodeSession on the GPU (gpu-rollout.ts) or a scripted double in tests
// (tests/unit/agents/agent-turns.test.ts); real runs in agent-gpu.test.ts and agent-python.test.ts.
import type { StepSample } from '../model/gpu/session';
import type { SamplingParams } from '../reference/sampling';
import type { ToolRegistry } from '../tools/registry';
import type { ChatMessage, ToolCall } from './chat-template';
import { resolveAgentConfig, samplingAt, type AgentLoopConfig } from './agent-config';
import { EpisodeTrace, type EpisodeResult, type FinishReason, type ToolCallRecord } from './episode-tokens';
import { rolloutStats, type RolloutStats } from './stats';
import { runTurnTools } from './tool-exec';
import { parseAssistantTurn, type ParsedTurn } from './tool-parse';
import { truncateToTokens } from './truncate';
import type { TurnRenderer } from './turn-render';

/** What the loop needs from the model: DecodeSession has exactly this shape. */
export interface PolicyStepper {
  /** Slots (live sequences) the stepper holds. */
  readonly B: number;
  /** Appends newTokens[s] to slot s and samples one next token per slot that appended any. */
  step(newTokens: number[][], params: SamplingParams): Promise<StepSample>;
  /** Empties a slot for a new episode, whose seeded draws come from noise stream `stream` (DecodeStepper.reset). */
  reset(slot: number, stream?: number): void;
}

export interface EpisodeSpec {
  /** The conversation before the first assistant turn (system, user). */
  messages: ChatMessage[];
  /** Teacher-forced text opening the first assistant turn (mask 0); if it ends with a stop id the turn ends there. */
  prefill?: string;
}

/** A tool call as the environment hook sees it: the record plus the text the model read. */
export interface ToolResult extends ToolCallRecord {
  text: string;
}

export interface TurnVerdict {
  /** End the episode now (finishReason 'answer'). */
  done?: boolean;
  /**
   * Messages the environment answers the turn with (e.g. failing test output as a user turn),
   * appended after the turn's tool responses as context (mask 0) before the next assistant
   * turn; a turn without tool calls then continues instead of ending the episode.
   */
  feedback?: ChatMessage[];
}

export interface StepInfo {
  step: number;
  /** Episodes that appended tokens this step. */
  stepping: number[];
  /** Episodes waiting on their tools meanwhile. */
  waiting: number[];
  /** Tokens appended over all slots (prompts and tool responses count here). */
  appended: number;
}

export interface AgentHooks {
  /** After every assistant turn, once its tools ran (environments score or stop episodes here). */
  onTurn?(episodeIndex: number, assistantText: string, toolResults: ToolResult[]): TurnVerdict | void | Promise<TurnVerdict | void>;
  onStep?(info: StepInfo): void;
  onEpisodeEnd?(episode: EpisodeResult): void;
}

export interface RunEpisodesArgs {
  stepper: PolicyStepper;
  renderer: TurnRenderer;
  registry: ToolRegistry;
  /** B prompts; each is sampled G = config.samplesPerPrompt times. */
  prompts: EpisodeSpec[];
  config?: Partial<AgentLoopConfig>;
  hooks?: AgentHooks;
  signal?: AbortSignal;
}

export interface RolloutBatch {
  episodes: EpisodeResult[];
  stats: RolloutStats;
  config: AgentLoopConfig;
}

export function runEpisodes(args: RunEpisodesArgs): Promise<RolloutBatch> {
  return new Rollout(args).run();
}

interface JobResult {
  kind: 'final' | 'max_turns' | 'tools';
  results: ToolResult[];
  verdict: TurnVerdict;
  error?: string;
}

interface Live {
  index: number;
  promptIndex: number;
  sampleIndex: number;
  id: string;
  slot: number;
  trace: EpisodeTrace;
  messages: ChatMessage[];
  promptLength: number;
  turns: number;
  sampledInTurn: number;
  stopId: number | null;
  toolCalls: ToolCallRecord[];
  finalText: string;
  job?: { promise: Promise<void>; result?: JobResult };
}

class Rollout {
  private readonly cfg: AgentLoopConfig;
  private readonly stopIds: Set<number>;
  private readonly queue: number[];
  private readonly freeSlots: number[];
  private readonly live = new Set<Live>();
  private readonly results: EpisodeResult[] = [];
  private readonly endings: Promise<void>[] = [];
  private steps = 0;
  private idleMs = 0;
  /** Settles when the rollout's signal aborts (never without a signal). */
  private readonly aborted: Promise<void>;

  constructor(private readonly a: RunEpisodesArgs) {
    this.cfg = resolveAgentConfig(a.config);
    const stops = this.cfg.stopTokenIds.length ? this.cfg.stopTokenIds : a.renderer.defaultStopIds;
    if (!stops.length) throw new Error('agent loop: no stop ids (the tokenizer names no EOS); set stopTokenIds in the agent config');
    this.stopIds = new Set(stops);
    if (!(a.stepper.B >= 1)) throw new Error(`agent loop: the stepper has ${a.stepper.B} slots; it needs at least 1`);
    const n = a.prompts.length * this.cfg.samplesPerPrompt;
    this.queue = Array.from({ length: n }, (_, i) => i);
    const slots = this.cfg.mode === 'sync' ? 1 : Math.min(a.stepper.B, Math.max(1, n));
    this.freeSlots = Array.from({ length: slots }, (_, i) => i);
    const sig = a.signal;
    this.aborted = new Promise((resolve) => {
      if (sig?.aborted) resolve();
      else sig?.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  async run(): Promise<RolloutBatch> {
    const t0 = performance.now();
    while (true) {
      if (this.a.signal?.aborted) {
        this.abortAll();
        break;
      }
      this.admit();
      this.settleJobs();
      if (!this.live.size && !this.queue.length) break;
      const ready = [...this.live].filter((e) => !e.job && e.trace.hasPending);
      if (!ready.length) {
        const waiting = [...this.live].filter((e) => e.job);
        if (waiting.length) {
          const w0 = performance.now();
          await Promise.race([...waiting.map((e) => e.job!.promise), this.aborted]);
          this.idleMs += performance.now() - w0;
        } else if (!this.freeSlots.length || !this.queue.length) {
          throw new Error('agent loop: live episodes with nothing to append and no tool running (internal error)');
        }
        continue;
      }
      await this.step(ready);
    }
    await Promise.all(this.endings);
    const episodes = this.results.filter((e): e is EpisodeResult => e !== undefined);
    const stats = rolloutStats(episodes, { rolloutMs: performance.now() - t0, idleMs: this.idleMs, steps: this.steps });
    return { episodes, stats, config: this.cfg };
  }

  /** One forward over the slots of `ready` (the others append nothing), then their samples. */
  private async step(ready: Live[]): Promise<void> {
    const B = this.a.stepper.B;
    const newTokens: number[][] = Array.from({ length: B }, () => []);
    for (const e of ready) newTokens[e.slot] = e.trace.takePending();
    const step = this.steps++;
    this.a.hooks?.onStep?.({
      step,
      stepping: ready.map((e) => e.index),
      waiting: [...this.live].filter((e) => e.job).map((e) => e.index),
      appended: newTokens.reduce((s, t) => s + t.length, 0),
    });
    const r = await this.a.stepper.step(newTokens, samplingAt(this.cfg, step));
    for (const e of ready) {
      const id = r.ids[e.slot];
      if (id < 0) throw new Error(`agent loop: the stepper returned no sample for slot ${e.slot}`);
      this.onSample(e, id, r.logprobs[e.slot]);
    }
  }

  private admit(): void {
    while (this.queue.length && this.freeSlots.length) {
      const index = this.queue.shift()!, slot = this.freeSlots.shift()!;
      const G = this.cfg.samplesPerPrompt;
      const e: Live = {
        index, promptIndex: Math.floor(index / G), sampleIndex: index % G, id: `${this.cfg.episodeIdPrefix}-${index}`, slot,
        trace: new EpisodeTrace(), messages: [], promptLength: 0, turns: 0, sampledInTurn: 0, stopId: null, toolCalls: [], finalText: '',
      };
      this.live.add(e);
      // The episode's own noise stream: its tokens do not depend on which episodes step with it
      // (the tools' timing in async mode, one reused slot in sync mode).
      this.a.stepper.reset(slot, index);
      try {
        const spec = this.a.prompts[e.promptIndex];
        const { prompt, forced, messages } = this.a.renderer.opening(spec.messages, spec.prefill);
        e.messages = messages;
        e.promptLength = prompt.length;
        e.trace.appendContext(prompt);
        e.trace.startTurn();
        if (e.trace.length + forced.length >= this.cfg.maxTokens) {
          this.finish(e, 'error', false, `the prompt (${e.trace.length + forced.length} tokens with the prefill) leaves no room under maxTokens = ${this.cfg.maxTokens}`);
          continue;
        }
        e.trace.appendContext(forced);
        const last = forced[forced.length - 1];
        if (last !== undefined && this.stopIds.has(last)) this.endTurn(e, last);
      } catch (err) {
        this.finish(e, 'error', false, (err as Error).message);
      }
    }
  }

  private onSample(e: Live, id: number, logprob: number): void {
    e.trace.appendSampled(id, logprob);
    e.sampledInTurn++;
    if (this.stopIds.has(id)) this.endTurn(e, id);
    else if (e.trace.length >= this.cfg.maxTokens || e.sampledInTurn >= this.cfg.maxTokensPerTurn) {
      this.recordTurnText(e, null);
      e.turns++;
      this.finish(e, 'max_tokens', true);
    }
  }

  /** The turn ended with `stopId` (or a teacher-forced stop): parse it and start its job. */
  private endTurn(e: Live, stopId: number): void {
    e.turns++;
    e.stopId = stopId;
    const { text, parsed } = this.recordTurnText(e, stopId);
    const kind: JobResult['kind'] = parsed.blocks.length === 0 ? 'final' : e.turns >= this.cfg.maxTurns ? 'max_turns' : 'tools';
    const turn = e.turns;
    const run = async (): Promise<JobResult> => {
      const outcomes = kind === 'tools' ? await runTurnTools(this.a.registry, parsed.blocks, e.id, this.cfg.toolTimeoutMs, this.a.signal) : [];
      const results = outcomes.map((o): ToolResult => {
        const cut = truncateToTokens(this.a.renderer.tok, o.text, this.cfg.toolResponseMaxTokens, this.cfg.toolResponseTruncateSide);
        const r: ToolResult = { turn, name: o.name, args: o.args, ok: o.ok, latencyMs: o.latencyMs, truncated: o.truncated || cut.truncated, text: cut.text };
        if (o.error !== undefined) r.error = o.error;
        return r;
      });
      const verdict = (await this.a.hooks?.onTurn?.(e.index, text, results)) ?? {};
      return { kind, results, verdict };
    };
    const job: NonNullable<Live['job']> = {
      promise: run().then(
        (r) => void (job.result = r),
        (err: unknown) => void (job.result = { kind, results: [], verdict: {}, error: (err as Error).message ?? String(err) }),
      ),
    };
    e.job = job;
  }

  /** Decodes the current turn, logs it as an assistant message and as finalText. */
  private recordTurnText(e: Live, stopId: number | null): { text: string; parsed: ParsedTurn } {
    const ids = e.trace.turnTokens();
    const body = stopId !== null ? ids.slice(0, -1) : ids;
    const text = this.a.renderer.tok.decode(body);
    const parsed = parseAssistantTurn(text);
    const calls: ToolCall[] = parsed.blocks.flatMap((b) => (b.ok ? [{ type: 'function' as const, function: { name: b.call.name, arguments: b.call.arguments } }] : []));
    e.messages.push(calls.length ? { role: 'assistant', content: parsed.content, tool_calls: calls } : { role: 'assistant', content: text });
    e.finalText = this.a.renderer.tok.decode(body, { skipSpecialTokens: true });
    return { text, parsed };
  }

  private settleJobs(): void {
    for (const e of [...this.live]) {
      const r = e.job?.result;
      if (!r) continue;
      e.job = undefined;
      try {
        this.applyJob(e, r);
      } catch (err) {
        this.finish(e, 'error', false, (err as Error).message);
      }
    }
  }

  private applyJob(e: Live, r: JobResult): void {
    for (const t of r.results) {
      const { text: _text, ...record } = t;
      e.toolCalls.push(record);
    }
    if (r.error !== undefined) return this.finish(e, 'error', false, r.error);
    const feedback = r.verdict.done ? [] : (r.verdict.feedback ?? []);
    if ((r.kind === 'final' && !feedback.length) || r.verdict.done) return this.finish(e, 'answer');
    if (r.kind === 'max_turns' || e.turns >= this.cfg.maxTurns) return this.finish(e, r.kind === 'final' ? 'answer' : 'max_turns');
    const toolMessages: ChatMessage[] = r.results.map((t) => ({ role: 'tool', name: t.name, content: t.text }));
    const added = [...toolMessages, ...feedback];
    const ids = this.a.renderer.continuation(e.messages, added, e.stopId);
    if (e.trace.length + ids.length >= this.cfg.maxTokens) return this.finish(e, 'max_tokens', true);
    e.messages.push(...added);
    e.trace.appendContext(ids);
    e.trace.startTurn();
    e.sampledInTurn = 0;
    e.stopId = null;
  }

  private finish(e: Live, finishReason: FinishReason, truncated = false, error?: string): void {
    this.live.delete(e);
    this.freeSlots.push(e.slot);
    const t = e.trace;
    const res: EpisodeResult = {
      index: e.index, promptIndex: e.promptIndex, sampleIndex: e.sampleIndex, id: e.id,
      tokens: t.tokens, mask: t.mask, logprobs: t.logprobs, promptLength: e.promptLength, turns: e.turns,
      toolCalls: e.toolCalls, finalText: e.finalText, finishReason, truncated, messages: e.messages,
    };
    if (error !== undefined) res.error = error;
    this.results[e.index] = res;
    this.endings.push(this.a.registry.endEpisode(e.id).catch(() => undefined));
    this.a.hooks?.onEpisodeEnd?.(res);
  }

  private abortAll(): void {
    for (const e of [...this.live]) this.finish(e, 'error', false, 'the rollout was aborted');
    while (this.queue.length) {
      const index = this.queue.shift()!;
      const G = this.cfg.samplesPerPrompt;
      this.results[index] = {
        index, promptIndex: Math.floor(index / G), sampleIndex: index % G, id: `${this.cfg.episodeIdPrefix}-${index}`,
        tokens: [], mask: [], logprobs: [], promptLength: 0, turns: 0, toolCalls: [], finalText: '', finishReason: 'error',
        truncated: false, error: 'the rollout was aborted before this episode started', messages: [],
      };
    }
  }
}
