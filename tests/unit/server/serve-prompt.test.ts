// Token-faithful prompts with the Qwen2.5 tokenizer and its tool-calling chat template, no GPU:
// a stored call whose completion is a <tool_call> followed by <|im_end|>, then the client's
// history echoed back in the OpenAI shape (assistant tool_calls, a tool message). The prompt must
// be the stored ids plus only the tool-response turn (which must decode to Qwen's
// <tool_response> block), equal here to re-rendering the whole chat; an edited history must be
// reported at the first token where it departs from the stored one.
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../../../src/agents/chat-template';
import { TurnRenderer } from '../../../src/agents/turn-render';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { loadTokenizer, type Tokenizer } from '../../../src/model/tokenizer';
import { buildPrompt } from '../../../src/server/openai/prompt';
import { parseChatRequest } from '../../../src/server/openai/request';
import { TRACE_VERSION, type CallRecord } from '../../../src/server/openai/traces';
import { sharedPath } from '../../fixtures/shared';

const DIR = sharedPath('models/qwen2.5-tokenizer');
const TOOLS: ToolSpec[] = [{ type: 'function', function: { name: 'python', description: 'Run Python', parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] } } }];
let tok: Tokenizer, r: TurnRenderer, IM_END: number;

beforeAll(async () => {
  tok = await loadTokenizer(new NodeDirSource(DIR));
  r = new TurnRenderer(tok, { tools: TOOLS });
  IM_END = tok.tokenToId('<|im_end|>')!;
});

/** The trace record of a first call that sampled `completion` (the stop token included). */
function firstCall(messages: ChatMessage[], completion: number[], response: ChatMessage): CallRecord {
  const prompt = r.prompt(messages).ids;
  return {
    kind: 'call', version: TRACE_VERSION, rollout_id: 'r', task_id: null, call_id: 'c1', choice: 0, created: 0, model: 'qwen', temperature: 1, top_p: 1,
    tokens: prompt.concat(completion), mask: prompt.map(() => 0).concat(completion.map(() => 1)),
    logprobs: (prompt.map(() => null) as (number | null)[]).concat(completion.map((_, i) => -0.1 * (i + 1))),
    prompt_length: prompt.length, finish_reason: 'stop_token', token_faithful: true, diverged: null, messages, response,
  };
}

describe.skipIf(!existsSync(DIR))('token-faithful prompts (Qwen2.5 tool template)', () => {
  it('continues the stored ids with only the tool-response turn', () => {
    const user: ChatMessage = { role: 'user', content: 'What is 17 * 23?' };
    const callText = '<tool_call>\n{"name": "python", "arguments": {"code": "print(17 * 23)"}}\n</tool_call>';
    const rec = firstCall([user], [...r.encodeText(callText), IM_END], {
      role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'python', arguments: { code: 'print(17 * 23)' } } }],
    });
    // What an OpenAI client sends back: the assistant message with JSON-string arguments, the tool result by call id.
    const req = parseChatRequest({
      model: 'qwen', tools: TOOLS, messages: [
        user,
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'python', arguments: '{"code": "print(17 * 23)"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '391' },
      ],
    }, { maxN: 1 });
    const p = buildPrompt(r, req.messages, [rec]);
    expect(p.faithful).toBe(true);
    expect(p.ids.slice(0, rec.tokens.length)).toEqual(rec.tokens);
    expect(p.mask).toEqual(rec.mask.concat(p.ids.slice(rec.tokens.length).map(() => 0)));
    expect(p.logprobs.slice(0, rec.tokens.length)).toEqual(rec.logprobs);
    const added = tok.decode(p.ids.slice(rec.tokens.length));
    console.log(`continuation: ${JSON.stringify(added)}`);
    expect(added).toBe('\n<|im_start|>user\n<tool_response>\n391\n</tool_response><|im_end|>\n<|im_start|>assistant\n');
    // The model wrote exactly what the template renders, so a full re-render agrees token for token.
    expect(r.prompt(req.messages).ids).toEqual(p.ids);
  });

  it('reports where an edited history departs from the stored tokens', () => {
    const user: ChatMessage = { role: 'user', content: 'Say hi.' };
    const rec = firstCall([user], [...r.encodeText('Hi there!'), IM_END], { role: 'assistant', content: 'Hi there!' });
    const edited: ChatMessage[] = [user, { role: 'assistant', content: 'Hello there!' }, { role: 'user', content: 'Again.' }];
    const p = buildPrompt(r, edited, [rec]);
    expect(p.faithful).toBe(false);
    expect(p.diverged!.token).toBe(rec.prompt_length);
    expect(p.diverged!.reason).toContain('call c1');
    expect(p.mask.every((m) => m === 0)).toBe(true);
    // The same history unedited is faithful.
    expect(buildPrompt(r, [user, { role: 'assistant', content: 'Hi there!' }, { role: 'user', content: 'Again.' }], [rec]).faithful).toBe(true);
  });
});
