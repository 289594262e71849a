// Chat rendering: Qwen2.5's own template (with tools, a tool call and a tool response) must give
// rendered_example.txt character for character; the plain fallback for base models.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PLAIN_TEMPLATE, renderChat, type ChatMessage, type ToolSpec } from '../../../src/agents/chat-template';
import { sharedPath } from '../../fixtures/shared';

const dir = sharedPath('models/qwen2.5-tokenizer');
const template = readFileSync(`${dir}/chat_template.jinja`, 'utf8');
const [withTools, noTools] = readFileSync(`${dir}/rendered_example.txt`, 'utf8').split(/\n?-----8<-----[^\n]*\n/);

const tools: ToolSpec[] = [
  { type: 'function', function: { name: 'search', description: 'Search the offline corpus', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } },
  { type: 'function', function: { name: 'python', description: 'Run Python code and return stdout', parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] } } },
];

describe('renderChat', () => {
  it('renders Qwen2.5 with tools, a tool call and a tool response exactly like the reference', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Which NFL team represented the AFC at Super Bowl 50?' },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'search', arguments: { query: 'AFC Super Bowl 50' } } }] },
      { role: 'tool', content: '[Super Bowl 50] The American Football Conference (AFC) champion Denver Broncos defeated ...' },
      { role: 'assistant', content: 'The Denver Broncos.' },
    ];
    const out = renderChat(template, messages, { tools });
    expect(out.trimEnd()).toBe(withTools.trimEnd());
  });

  it('renders the default system prompt and the generation prompt without tools', () => {
    const out = renderChat(template, [{ role: 'user', content: 'Hi' }], { addGenerationPrompt: true });
    expect(out.trimEnd()).toBe(noTools.trimEnd());
  });

  it('falls back to a plain template and names bad messages', () => {
    expect(renderChat(undefined, [{ role: 'user', content: 'Hi' }], { addGenerationPrompt: true })).toBe('user: Hi\nassistant:');
    expect(PLAIN_TEMPLATE).toContain('add_generation_prompt');
    expect(() => renderChat(undefined, [{ role: 'robot' as 'user', content: 'x' }])).toThrow('messages[0].role');
  });
});
