// The chat-completions request, checked field by field: the OpenAI wire body (messages with
// string or text-part content, assistant tool_calls with JSON-string arguments, tool messages,
// tools, sampling fields, n, logprobs, stream, metadata) becomes a typed ChatRequest or a 400
// naming the field. Tested by tests/unit/server/serve-request.test.ts.
import type { ChatMessage, ToolSpec } from '../../agents/chat-template';
import { badParam } from './errors';

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** 'none': tools are shown but calls are not parsed out of the text. */
  toolChoice: 'auto' | 'none';
  temperature: number;
  topP: number;
  /** Most new tokens per choice (undefined: up to the context). */
  maxTokens?: number;
  stop: string[];
  seed?: number;
  n: number;
  logprobs: boolean;
  topLogprobs: number;
  stream: boolean;
  includeUsage: boolean;
  metadata: Record<string, string>;
}

export interface RequestLimits {
  /** Largest n. */
  maxN: number;
}

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function num(body: Json, key: string, lo: number, hi: number, fallback: number): number;
function num(body: Json, key: string, lo: number, hi: number): number | undefined;
function num(body: Json, key: string, lo: number, hi: number, fallback?: number): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw badParam(key, `must be a number, got ${JSON.stringify(v)}`, 'invalid_type');
  if (v < lo || v > hi) throw badParam(key, `must be in [${lo}, ${hi}], got ${v}`);
  return v;
}

function int(body: Json, key: string, lo: number, hi: number): number | undefined {
  const v = num(body, key, lo, hi);
  if (v !== undefined && !Number.isInteger(v)) throw badParam(key, `must be an integer, got ${v}`, 'invalid_type');
  return v;
}

function bool(body: Json, key: string): boolean {
  const v = body[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw badParam(key, `must be true or false, got ${JSON.stringify(v)}`, 'invalid_type');
  return v;
}

/** String content, or an array of {type: "text", text} parts joined. */
function content(v: unknown, where: string, nullable: boolean): string {
  if (typeof v === 'string') return v;
  if ((v === null || v === undefined) && nullable) return '';
  if (Array.isArray(v)) {
    return v.map((p, j) => {
      if (isObj(p) && p.type === 'text' && typeof p.text === 'string') return p.text;
      throw badParam(`${where}[${j}]`, 'only {"type": "text", "text": "..."} parts are supported (this model reads text only)');
    }).join('');
  }
  throw badParam(where, 'must be a string or an array of text parts');
}

function message(m: unknown, i: number, callNames: Map<string, string>): ChatMessage {
  const at = `messages[${i}]`;
  if (!isObj(m)) throw badParam(at, 'must be an object with role and content');
  const role = m.role === 'developer' ? 'system' : m.role;
  if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
    throw badParam(`${at}.role`, `must be system, developer, user, assistant or tool, got ${JSON.stringify(m.role)}`);
  }
  const out: ChatMessage = { role, content: content(m.content, `${at}.content`, role === 'assistant') };
  if (role === 'assistant' && m.tool_calls !== undefined && m.tool_calls !== null) {
    if (!Array.isArray(m.tool_calls)) throw badParam(`${at}.tool_calls`, 'must be an array');
    out.tool_calls = m.tool_calls.map((c, j) => {
      const cat = `${at}.tool_calls[${j}]`;
      if (!isObj(c) || !isObj(c.function) || typeof c.function.name !== 'string') throw badParam(cat, 'must be {id, type: "function", function: {name, arguments}}');
      const raw = c.function.arguments ?? '{}';
      let args: unknown = raw;
      if (typeof raw === 'string') {
        try {
          args = JSON.parse(raw || '{}');
        } catch (e) {
          throw badParam(`${cat}.function.arguments`, `is not valid JSON (${(e as Error).message})`);
        }
      }
      if (!isObj(args)) throw badParam(`${cat}.function.arguments`, 'must be a JSON object');
      if (typeof c.id === 'string') callNames.set(c.id, c.function.name);
      return { type: 'function' as const, function: { name: c.function.name, arguments: args } };
    });
  }
  if (role === 'tool') {
    if (typeof m.tool_call_id !== 'string') throw badParam(`${at}.tool_call_id`, 'is required for role "tool" (the id of the call it answers)');
    const name = callNames.get(m.tool_call_id);
    if (name) out.name = name;
  }
  return out;
}

function tool(t: unknown, i: number): ToolSpec {
  const at = `tools[${i}]`;
  if (!isObj(t) || t.type !== 'function' || !isObj(t.function)) throw badParam(at, 'must be {"type": "function", "function": {name, description, parameters}}');
  const f = t.function;
  if (typeof f.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(f.name)) throw badParam(`${at}.function.name`, 'must be 1-64 letters, digits, _ or -');
  if (f.parameters !== undefined && !isObj(f.parameters)) throw badParam(`${at}.function.parameters`, 'must be a JSON Schema object');
  return {
    type: 'function',
    function: { name: f.name, description: typeof f.description === 'string' ? f.description : '', parameters: (f.parameters as Json | undefined) ?? { type: 'object', properties: {} } },
  };
}

function toolChoice(v: unknown): 'auto' | 'none' {
  if (v === undefined || v === null || v === 'auto') return 'auto';
  if (v === 'none') return 'none';
  throw badParam('tool_choice', 'only "auto" and "none" are supported: this server does not constrain decoding to force a call', 'unsupported_value');
}

function stops(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || list.length > 4 || list.some((s) => typeof s !== 'string' || s === '')) throw badParam('stop', 'must be a non-empty string or an array of at most 4 of them');
  return list as string[];
}

function metadata(v: unknown): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObj(v) || Object.values(v).some((x) => typeof x !== 'string')) throw badParam('metadata', 'must be an object of string values');
  return v as Record<string, string>;
}

export function parseChatRequest(body: unknown, limits: RequestLimits): ChatRequest {
  if (!isObj(body)) throw badParam('body', 'must be a JSON object');
  if (typeof body.model !== 'string' || !body.model) throw badParam('model', 'is required (GET /v1/models lists the model served)', 'missing_required_parameter');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw badParam('messages', 'must be a non-empty array', 'missing_required_parameter');
  const callNames = new Map<string, string>();
  const messages = body.messages.map((m, i) => message(m, i, callNames));
  if (body.tools !== undefined && body.tools !== null && !Array.isArray(body.tools)) throw badParam('tools', 'must be an array');
  const tools = Array.isArray(body.tools) ? body.tools.map(tool) : [];
  const maxTokens = int(body, 'max_completion_tokens', 1, 1 << 20) ?? int(body, 'max_tokens', 1, 1 << 20);
  const logprobs = bool(body, 'logprobs');
  const topLogprobs = int(body, 'top_logprobs', 0, 20) ?? 0;
  if (topLogprobs > 0 && !logprobs) throw badParam('top_logprobs', 'needs logprobs: true');
  const stream = bool(body, 'stream');
  const so = body.stream_options;
  if (so !== undefined && so !== null && !isObj(so)) throw badParam('stream_options', 'must be an object');
  const seed = int(body, 'seed', -(2 ** 53), 2 ** 53);
  return {
    model: body.model, messages, tools, toolChoice: toolChoice(body.tool_choice),
    temperature: num(body, 'temperature', 0, 2, 1), topP: num(body, 'top_p', 1e-6, 1, 1),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    stop: stops(body.stop), ...(seed !== undefined ? { seed } : {}),
    n: int(body, 'n', 1, limits.maxN) ?? 1, logprobs, topLogprobs, stream,
    includeUsage: isObj(so) && so.include_usage === true, metadata: metadata(body.metadata),
  };
}
