// rollouts.jsonl records (src/rl/rollout-log.ts): each record carries the episode's chat messages
// (role, content, tool_calls, tool name) as the agent loop produced them, so a run exports to
// TRL's conversational prompt/completion split; records written before the field (text only)
// still read. The agent loop's real messages are checked in tests/unit/rl/rl-grpo.test.ts.
// Run: npx vitest run tests/unit/rl/rollout-log.test.ts
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/agents/chat-template';
import type { EpisodeResult } from '../../../src/agents/episode-tokens';
import { episodeReturn } from '../../../src/envs/reward';
import { rolloutRecord, toJsonl, type RolloutRecord } from '../../../src/rl/rollout-log';

const messages: ChatMessage[] = [
  { role: 'system', content: 'Answer with tools.' },
  { role: 'user', content: 'What is 6*7?' },
  { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'python', arguments: { code: 'print(6*7)' } } }] },
  { role: 'tool', name: 'python', content: '42' },
  { role: 'assistant', content: 'The answer is 42.' },
];

const episode: EpisodeResult = {
  index: 0, promptIndex: 0, sampleIndex: 1, id: 'ep-0', tokens: [1, 2, 3], mask: [0, 1, 1], logprobs: [NaN, -0.5, -1],
  promptLength: 1, turns: 2, toolCalls: [], finalText: 'The answer is 42.', finishReason: 'answer', truncated: false, messages,
};

describe('rollout records', () => {
  it('keep the chat messages beside the flattened text, and old records still read', () => {
    const rec = rolloutRecord(3, episode, episodeReturn([], { total: 1, parts: { correct: 1 } }), 0.5, 'a');
    const back = JSON.parse(toJsonl([rec])) as RolloutRecord;
    expect(back.messages).toEqual(messages);
    expect(back.text).toBe('user: What is 6*7?\nassistant: \ntool: 42\nassistant: The answer is 42.');
    // TRL conversational prompt/completion: the messages before the first assistant turn, then the rest.
    const first = back.messages!.findIndex((m) => m.role === 'assistant');
    expect(back.messages!.slice(0, first).map((m) => m.role)).toEqual(['system', 'user']);
    expect(back.messages!.slice(first).map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);

    const { messages: _dropped, ...old } = back;
    const oldRead = JSON.parse(JSON.stringify(old)) as RolloutRecord;
    expect(oldRead.messages).toBeUndefined();
    expect(oldRead.text).toBe(back.text);
  });
});
