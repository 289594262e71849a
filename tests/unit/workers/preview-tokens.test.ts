// previewTokens (the engine worker's preview-tokens request, the Datasets panel's token preview) on
// agent-tiny's files held in memory: a math task's opening messages become the ids the tokenizer
// gives the chat-template text (compared with an independent encode of renderChat's output), the
// pieces join back to that text and end with the assistant turn's opening; a folder whose
// tokenizer.json is broken is refused, naming the folder. No GPU needed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderChat } from '../../../src/agents/chat-template';
import { MathEnv } from '../../../src/envs/math/env';
import { MemorySource } from '../../../src/model/io/memory-source';
import { loadTokenizer } from '../../../src/model/tokenizer';
import { previewTokens } from '../../../src/workers/engine/preview-tokens';

const DIR = 'public/models/agent-tiny';
const FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];
const tiny = (): Record<string, Uint8Array | string> => Object.fromEntries(FILES.map((f) => [f, new Uint8Array(readFileSync(`${DIR}/${f}`))]));

describe('previewTokens', () => {
  it('gives the tokens of the chat-template text of a task\'s opening messages, each with its text', async () => {
    const messages = new MathEnv({}).initialMessages({ task_id: 't1', question: 'Mia has 4 bags of 5 plums. How many plums?', answer: '20', metadata: {} });
    const [p] = await previewTokens(new MemorySource(tiny(), 'my-agent'), [messages]);
    const tok = await loadTokenizer(new MemorySource(tiny(), 'again'));
    const text = renderChat(tok.chatTemplate, messages, { addGenerationPrompt: true });
    console.log(`${p.ids.length} tokens; first ${JSON.stringify(p.pieces.slice(0, 6))}, last ${JSON.stringify(p.pieces.slice(-4))}`);
    expect(p.ids).toEqual(tok.encode(text, { addSpecialTokens: false }));
    expect(p.pieces).toHaveLength(p.ids.length);
    expect(p.pieces.join('')).toBe(text);
    expect(p.pieces[0]).toBe('<|im_start|>');
    expect(text.endsWith('<|im_start|>assistant\n')).toBe(true);
    expect(p.pieces.join('')).toContain('How many plums?');
  });

  it('refuses a folder whose tokenizer does not load, naming the folder', async () => {
    const files = { ...tiny(), 'tokenizer.json': '{"model": ' };
    await expect(previewTokens(new MemorySource(files, 'broken-agent'), [[{ role: 'user', content: 'hi' }]])).rejects.toThrow(/^broken-agent: the tokenizer does not load .*Models panel/);
  });
});
