// The server's pure parts without a GPU: request validation (fields named in errors, wire
// shapes converted: text parts, tool_calls with JSON-string arguments, tool names from ids),
// the streaming tool-call parser (held-back tags, calls split across pieces, damaged blocks as
// content) and the per-client rate limiter.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/server/openai/errors';
import { RateLimiter } from '../../../src/server/openai/rate-limit';
import { parseChatRequest } from '../../../src/server/openai/request';
import { ToolCallStream, type StreamEvent } from '../../../src/server/openai/stream-parser';

const limits = { maxN: 4 };
const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
const fieldOf = (body: unknown): string | null => {
  try {
    parseChatRequest(body, limits);
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(400);
    return (e as ApiError).param;
  }
  return null;
};

describe('parseChatRequest', () => {
  it('converts the wire shapes', () => {
    const r = parseChatRequest({
      ...base, n: 2, max_completion_tokens: 9, stop: 'END', logprobs: true, top_logprobs: 2, metadata: { rollout_id: 'r1' },
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'be ' }, { type: 'text', text: 'brief' }] },
        { role: 'user', content: 'add' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a": 1}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: '1' },
      ],
      tools: [{ type: 'function', function: { name: 'add', parameters: { type: 'object' } } }],
    }, limits);
    expect(r.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'add' },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'add', arguments: { a: 1 } } }] },
      { role: 'tool', content: '1', name: 'add' },
    ]);
    expect(r).toMatchObject({ n: 2, maxTokens: 9, stop: ['END'], logprobs: true, topLogprobs: 2, temperature: 1, topP: 1, toolChoice: 'auto', metadata: { rollout_id: 'r1' } });
    expect(r.tools[0].function).toEqual({ name: 'add', description: '', parameters: { type: 'object' } });
  });

  it('names the field at fault', () => {
    expect(fieldOf({ messages: base.messages })).toBe('model');
    expect(fieldOf({ ...base, messages: [] })).toBe('messages');
    expect(fieldOf({ ...base, temperature: 3 })).toBe('temperature');
    expect(fieldOf({ ...base, n: 5 })).toBe('n');
    expect(fieldOf({ ...base, n: 1.5 })).toBe('n');
    expect(fieldOf({ ...base, top_logprobs: 3 })).toBe('top_logprobs');
    expect(fieldOf({ ...base, stop: ['a', 'b', 'c', 'd', 'e'] })).toBe('stop');
    expect(fieldOf({ ...base, tool_choice: { type: 'function', function: { name: 'x' } } })).toBe('tool_choice');
    expect(fieldOf({ ...base, messages: [{ role: 'tool', content: 'x' }] })).toBe('messages[0].tool_call_id');
    expect(fieldOf({ ...base, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] })).toBe('messages[0].content[0]');
    expect(fieldOf({ ...base, messages: [{ role: 'assistant', content: '', tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{oops' } }] }] }))
      .toBe('messages[0].tool_calls[0].function.arguments');
    expect(fieldOf({ ...base, tools: [{ type: 'function', function: { name: 'bad name!' } }] })).toBe('tools[0].function.name');
    expect(fieldOf({ ...base, metadata: { a: 1 } })).toBe('metadata');
  });
});

describe('ToolCallStream', () => {
  const run = (pieces: string[]): StreamEvent[] => {
    const s = new ToolCallStream(true);
    return [...pieces.flatMap((p) => s.push(p)), ...s.end()];
  };
  const content = (ev: StreamEvent[]) => ev.filter((e) => e.kind === 'content').map((e) => (e as { text: string }).text).join('');

  it('finds calls split across pieces and holds back a partial tag', () => {
    const text = 'Let me add.\n<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>';
    for (const size of [1, 3, 7, 200]) {
      const pieces: string[] = [];
      for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
      const ev = run(pieces);
      expect(content(ev)).toBe('Let me add.');
      expect(ev.filter((e) => e.kind === 'call')).toEqual([{ kind: 'call', name: 'add', arguments: '{"a":1,"b":2}' }]);
    }
  });

  it('passes damaged or unclosed blocks and lookalike text on as content', () => {
    expect(content(run(['a <tool', 'box> b']))).toBe('a <toolbox> b');
    expect(run(['<tool_call>{"name": 1}</tool_call>'])).toEqual([{ kind: 'content', text: '<tool_call>{"name": 1}</tool_call>' }]);
    expect(content(run(['x<tool_call>{"name": "f"']))).toBe('x<tool_call>{"name": "f"');
    expect(content(new ToolCallStream(false).push('<tool_call>{}</tool_call>'))).toBe('<tool_call>{}</tool_call>');
  });
});

describe('RateLimiter', () => {
  it('allows a burst of perMinute / 4, then refills evenly', () => {
    let now = 0;
    const rl = new RateLimiter(60, () => now);
    // 60 per minute: a burst of 15, then one per second.
    const burst = Array.from({ length: 15 }, () => rl.take('a').ok);
    expect(burst.every(Boolean)).toBe(true);
    const refused = rl.take('a');
    expect(refused).toEqual({ ok: false, retryAfter: 1 });
    expect(rl.take('b').ok).toBe(true);
    now += 1000;
    expect(rl.take('a').ok).toBe(true);
    expect(new RateLimiter(0).take('a').ok).toBe(true);
  });
});
