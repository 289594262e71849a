// POST /v1/chat/completions on the engine: render the conversation (token-faithful when it
// continues a rollout), run the n choices through the batching scheduler, turn each into an
// OpenAI message (tool calls parsed from the model's own format), per-token logprobs and
// top_logprobs, usage; streamed as chat.completion.chunk events or returned whole; every choice
// stored as a trace record. Tested by tests/unit/server/serve-openai.test.ts with the official client.
import { randomBytes } from 'node:crypto';
import type { ChatMessage } from '../../agents/chat-template';
import { parseAssistantTurn } from '../../agents/tool-parse';
import { TurnRenderer } from '../../agents/turn-render';
import type { GpuRuntime } from '../../gpu/runtime';
import type { GpuModel } from '../../model/gpu/model';
import type { Tokenizer } from '../../model/tokenizer';
import { ApiError } from './errors';
import type { OnlineTrainer } from './online';
import { buildPrompt, type BuiltPrompt } from './prompt';
import type { ChatRequest } from './request';
import type { Scheduler, SeqResult } from './scheduler';
import { ToolCallStream, type StreamEvent } from './stream-parser';
import { topLogprobs } from './top-logprobs';
import { TRACE_VERSION, type CallRecord, type TraceStore } from './traces';

export interface ServedModel {
  /** The name clients pass as `model`. */
  id: string;
  rt: GpuRuntime;
  model: GpuModel;
  tok: Tokenizer;
  /** EOS ids of the model config (besides the tokenizer's). */
  modelEosTokenIds: number[];
  created: number;
}

export interface ChatDeps {
  served: ServedModel;
  scheduler: Scheduler;
  traces: TraceStore;
  /** serve --online: trains the served adapter from rewarded rollouts (null: serving only). */
  online: OnlineTrainer | null;
}

export interface RolloutRef {
  rolloutId: string;
  taskId: string | null;
}

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

export interface ChatResult {
  /** The whole response (non-streaming), null when streamed. */
  body: Record<string, unknown> | null;
  prompt: BuiltPrompt;
  callId: string;
  rolloutId: string;
}

const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;

export async function chatCompletion(deps: ChatDeps, req: ChatRequest, ref: RolloutRef, emit: ((chunk: object) => void) | null,
  onCancel: (cancel: () => void) => void): Promise<ChatResult> {
  const { served, scheduler, traces } = deps;
  if (req.model !== served.id) throw new ApiError(404, `The model "${req.model}" does not exist; this server serves "${served.id}" (GET /v1/models)`, 'not_found_error', 'model', 'model_not_found');
  const parseCalls = req.tools.length > 0 && req.toolChoice === 'auto';
  const renderer = new TurnRenderer(served.tok, { tools: req.tools, modelEosTokenIds: served.modelEosTokenIds });
  const callId = newId('chatcmpl-'), created = Math.floor(Date.now() / 1000);
  // Without a rollout id the call is a rollout of its own, named by the call id.
  const rolloutId = ref.rolloutId || callId;
  let prompt: BuiltPrompt;
  try {
    prompt = buildPrompt(renderer, req.messages, ref.rolloutId ? traces.calls(ref.rolloutId) : []);
  } catch (e) {
    throw new ApiError(400, `messages: ${(e as Error).message}`, 'invalid_request_error', 'messages');
  }
  const ctx = scheduler.opts.maxContext;
  if (prompt.ids.length >= ctx) {
    throw new ApiError(400, `messages: the prompt is ${prompt.ids.length} tokens; this server's context is ${ctx} (start it with a larger --max-context or send a shorter conversation)`, 'invalid_request_error', 'messages', 'context_length_exceeded');
  }
  const maxNew = Math.min(req.maxTokens ?? ctx, ctx - prompt.ids.length);
  const head = { id: callId, object: 'chat.completion.chunk', created, model: served.id, system_fingerprint: null };
  const streams = Array.from({ length: req.n }, () => new ToolCallStream(parseCalls));
  const callCounts = new Array<number>(req.n).fill(0);
  const toolIds: string[][] = Array.from({ length: req.n }, () => []);
  const send = (i: number, events: StreamEvent[]) => {
    for (const e of events) emit?.({ ...head, choices: [{ index: i, delta: deltaOf(i, e), logprobs: null, finish_reason: null }] });
  };
  const deltaOf = (i: number, e: StreamEvent): Record<string, unknown> => {
    if (e.kind === 'content') return { content: e.text };
    const index = callCounts[i]++, id = newId('call_');
    toolIds[i].push(id);
    return { tool_calls: [{ index, id, type: 'function', function: { name: e.name, arguments: e.arguments } }] };
  };
  if (emit) for (let i = 0; i < req.n; i++) emit({ ...head, choices: [{ index: i, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });

  const job = scheduler.submit({ temperature: req.temperature, topP: req.topP, ...(req.seed !== undefined ? { seed: req.seed >>> 0 } : {}) },
    Array.from({ length: req.n }, (_, i) => ({
      prompt: prompt.ids, maxNewTokens: maxNew, stopIds: renderer.defaultStopIds, stopStrings: req.stop,
      ...(emit ? { onText: (t: string) => send(i, streams[i].push(t)) } : {}),
    })));
  onCancel(job.cancel);
  const results = await job.done;

  const choices = await Promise.all(results.map(async (r, i) => {
    if (emit) send(i, streams[i].end());
    const msg = toMessage(r.text, parseCalls, toolIds[i]);
    const finish = msg.tool_calls ? 'tool_calls' : r.finish === 'length' ? 'length' : 'stop';
    const logprobs = req.logprobs ? { content: await tokenLogprobs(served, prompt.ids, r, req), refusal: null } : null;
    return { msg, finish, logprobs, r };
  }));
  const records: CallRecord[] = choices.map(({ msg, r }, i) => ({
    kind: 'call', version: TRACE_VERSION, rollout_id: rolloutId, task_id: ref.taskId, call_id: callId, choice: i, created,
    model: served.id, temperature: req.temperature, top_p: req.topP,
    tokens: prompt.ids.concat(r.tokens), mask: prompt.mask.concat(r.tokens.map(() => 1)), logprobs: prompt.logprobs.concat(r.logprobs),
    prompt_length: prompt.ids.length, finish_reason: r.finish, token_faithful: prompt.faithful, diverged: prompt.diverged,
    messages: req.messages, response: chatMessageOf(msg.content ?? '', msg.tool_calls),
  }));
  traces.add(records);
  const completionTokens = results.reduce((a, r) => a + r.tokens.length, 0);
  const usage = { prompt_tokens: prompt.ids.length, completion_tokens: completionTokens, total_tokens: prompt.ids.length + completionTokens };
  if (emit) {
    for (const [i, c] of choices.entries()) emit({ ...head, choices: [{ index: i, delta: {}, logprobs: c.logprobs, finish_reason: c.finish }] });
    if (req.includeUsage) emit({ ...head, choices: [], usage });
    return { body: null, prompt, callId, rolloutId };
  }
  return {
    prompt, callId, rolloutId,
    body: {
      id: callId, object: 'chat.completion', created, model: served.id, system_fingerprint: null,
      choices: choices.map((c, i) => ({ index: i, message: c.msg, logprobs: c.logprobs, finish_reason: c.finish })),
      usage,
    },
  };
}

/** The OpenAI assistant message of a turn's text; streamed calls keep the ids already sent. */
function toMessage(text: string, parseCalls: boolean, ids: string[]): { role: 'assistant'; content: string | null; refusal: null; tool_calls?: WireToolCall[] } {
  if (!parseCalls) return { role: 'assistant', content: text, refusal: null };
  const turn = parseAssistantTurn(text);
  const calls = turn.blocks.filter((b) => b.ok).map((b, j): WireToolCall => ({
    id: ids[j] ?? newId('call_'), type: 'function', function: { name: b.call.name, arguments: JSON.stringify(b.call.arguments) },
  }));
  if (!calls.length) return { role: 'assistant', content: turn.content, refusal: null };
  return { role: 'assistant', content: turn.content || null, refusal: null, tool_calls: calls };
}

/** The assistant turn as a chat message (what the client will echo back in its history). */
function chatMessageOf(content: string, calls: WireToolCall[] | undefined): ChatMessage {
  const m: ChatMessage = { role: 'assistant', content };
  if (calls) m.tool_calls = calls.map((c) => ({ type: 'function', function: { name: c.function.name, arguments: JSON.parse(c.function.arguments) as Record<string, unknown> } }));
  return m;
}

const utf8Text = new TextDecoder();

/** A logprobs entry: the token's bytes in the middle of a text, and their text (U+FFFD for part of a character). */
function tokenEntry(tok: Tokenizer, id: number, logprob: number): { token: string; logprob: number; bytes: number[] } {
  const bytes = tok.tokenBytes(id);
  return { token: utf8Text.decode(bytes), logprob, bytes: [...bytes] };
}

/** logprobs.content: every sampled token but a final stop token, with its top alternatives. */
async function tokenLogprobs(served: ServedModel, prompt: number[], r: SeqResult, req: ChatRequest): Promise<TokenLogprob[]> {
  const n = r.finish === 'stop_token' ? r.tokens.length - 1 : r.tokens.length;
  const tops = req.topLogprobs > 0 ? await topLogprobs(served.rt, served.model, prompt.concat(r.tokens), prompt.length, req.topLogprobs, req.temperature) : null;
  const out: TokenLogprob[] = [];
  for (let t = 0; t < n; t++) {
    out.push({ ...tokenEntry(served.tok, r.tokens[t], r.logprobs[t]), top_logprobs: tops ? tops[t].map((e) => tokenEntry(served.tok, e.id, e.logprob)) : [] });
  }
  return out;
}
