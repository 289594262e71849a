// previewTokens (the engine worker's preview-tokens request, the Datasets panel's token preview) on
// agent-tiny's files held in memory. Task lines: a math task under the defaults is the chat
// template's text of its opening messages (an independent encode), all context; agent tasks under
// that math config are previewed as the agent env, its python and search tools in the system turn.
// SFT lines: the SFT loader's ids, trained exactly on the assistant turns' text (context on the
// user, tool and system text), and the file's lines longer than data.max_length counted as
// truncated. A folder whose tokenizer.json is broken is refused, naming the folder. No GPU needed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderChat, type ChatMessage } from '../../../src/agents/chat-template';
import { loadTasks } from '../../../src/data/loader';
import { MathEnv } from '../../../src/envs/math/env';
import { MemorySource } from '../../../src/model/io/memory-source';
import { loadTokenizer } from '../../../src/model/tokenizer';
import { previewTokens } from '../../../src/workers/engine/preview-tokens';

const DIR = 'public/models/agent-tiny';
const FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];
const tiny = (): Record<string, Uint8Array | string> => Object.fromEntries(FILES.map((f) => [f, new Uint8Array(readFileSync(`${DIR}/${f}`))]));
const GSM8K = readFileSync('configs/gsm8k_grpo.yaml', 'utf8');
const SFT = readFileSync('configs/sft.yaml', 'utf8');
/** Defaults: math without env.python_tool (no tools). */
const MATH = 'model:\n  path: public/models/agent-tiny\ndata:\n  env: math\n';
const sftLines = readFileSync('datasets/agent_sft.jsonl', 'utf8').split('\n').filter((l) => l.trim()).slice(0, 40);

describe('previewTokens: task lines', () => {
  it('a math task is the chat-template text of its opening messages, every token context', async () => {
    const task = { task_id: 't1', question: 'Mia has 4 bags of 5 plums. How many plums?', answer: '20', metadata: {} };
    const p = await previewTokens(new MemorySource(tiny(), 'my-agent'), MATH, { kind: 'tasks', schema: 'math', fileName: 'mine.jsonl', tasks: [{ line: 3, task }] });
    const tok = await loadTokenizer(new MemorySource(tiny(), 'again'));
    const text = renderChat(tok.chatTemplate, new MathEnv({}).initialMessages(task), { addGenerationPrompt: true });
    const t = p.byLine[3];
    console.log(`math: ${t.ids.length} tokens; first ${JSON.stringify(t.pieces.slice(0, 4))}, last ${JSON.stringify(t.pieces.slice(-3))}; tools ${JSON.stringify(p.tools)}`);
    expect(t.ids).toEqual(tok.encode(text, { addSpecialTokens: false }));
    expect(t.pieces.join('')).toBe(text);
    expect(t.trained).toEqual(t.ids.map(() => 0));
    expect(p.tools).toEqual({ names: [], listed: false });
    expect(p.sft).toBeNull();
  });

  it('agent tasks under a math config are previewed as the agent env, its tools listed, with a note saying so', async () => {
    const tasks = loadTasks('agent', readFileSync('datasets/agent_train.jsonl', 'utf8'), 'agent_train.jsonl').tasks.slice(0, 2);
    const p = await previewTokens(new MemorySource(tiny(), 'my-agent'), GSM8K, { kind: 'tasks', schema: 'agent', fileName: 'agent_train.jsonl', tasks: tasks.map((task, i) => ({ line: i + 1, task })) });
    const text = p.byLine[1].pieces.join('');
    console.log(`agent: ${p.byLine[1].ids.length} tokens; tools ${JSON.stringify(p.tools)}; notes ${JSON.stringify(p.notes)}`);
    expect(p.tools).toEqual({ names: ['python', 'search'], listed: true });
    expect(text).toContain('# Tools');
    expect(text).toMatch(/^python\(code\): Run Python code and print the result$/m);
    expect(text).toMatch(/^search\(query.*\): Search the fact corpus$/m);
    expect(p.notes.join(' ')).toMatch(/an agent task file .* data\.env math/);
  });
});

describe('previewTokens: SFT lines', () => {
  it('trains on the assistant turns only: the trained tokens spell the assistant text, the context the rest', async () => {
    const text = sftLines.join('\n');
    const p = await previewTokens(new MemorySource(tiny(), 'my-agent'), SFT, { kind: 'sft', fileName: 'agent_sft.jsonl', text, lines: [1, 2] });
    const t = p.byLine[1];
    const msgs = (JSON.parse(sftLines[0]) as { messages: ChatMessage[] }).messages;
    const trainedText = t.pieces.filter((_, i) => t.trained[i]).join('');
    const contextText = t.pieces.filter((_, i) => !t.trained[i]).join('');
    console.log(`sft line 1: ${t.ids.length} tokens, ${t.trained.reduce((a, b) => a + b, 0)} trained: ${JSON.stringify(trainedText)}`);
    expect(t.trained[0]).toBe(0);
    expect(trainedText).toContain(msgs[4].content);
    expect(trainedText).toContain('print(52 * 40 + 52)');
    expect(trainedText).toContain('<|im_end|>');
    expect(trainedText).not.toContain(msgs[1].content);
    expect(contextText).toContain(msgs[1].content);
    expect(contextText).toContain(msgs[0].content);
    expect(contextText).toContain('<tool_response>');
    expect(contextText).toContain('Search the fact corpus');
    expect(p.sft).toMatchObject({ lines: 40, examples: 40, truncated: 0, skipped: [], maxLength: 512 });
  });

  it('counts the lines longer than data.max_length as truncated (cut, kept) and shows a cut line\'s full length', async () => {
    const tok = await loadTokenizer(new MemorySource(tiny(), 'again'));
    const lengths = sftLines.map((l) => {
      const j = JSON.parse(l) as { messages: ChatMessage[]; tools: never };
      return tok.encode(renderChat(tok.chatTemplate, j.messages, { tools: j.tools }), { addSpecialTokens: false }).length;
    });
    const max = [...lengths].sort((a, b) => a - b)[Math.floor(lengths.length / 2)];
    const longer = lengths.filter((n) => n > max).length;
    const first = lengths.findIndex((n) => n > max);
    const p = await previewTokens(new MemorySource(tiny(), 'my-agent'), SFT.replace(/^( {2}dataset: .*)$/m, `$1\n  max_length: ${max}`), { kind: 'sft', fileName: 'agent_sft.jsonl', text: sftLines.join('\n'), lines: [first + 1] });
    console.log(`max_length ${max}: ${longer} of ${lengths.length} lines longer; preview says ${p.sft?.truncated} truncated, ${p.sft?.skipped.length} skipped`);
    expect(longer).toBeGreaterThan(0);
    expect(p.sft?.maxLength).toBe(max);
    expect(p.sft?.maxLengthFrom).toBe('data.max_length');
    expect(p.sft!.truncated + p.sft!.skipped.length).toBe(longer);
    const t = p.byLine[first + 1];
    expect(t).toMatchObject({ truncated: true, length: lengths[first] });
    expect(t.ids).toHaveLength(max);
  });

  it('refuses a folder whose tokenizer does not load, naming the folder', async () => {
    const files = { ...tiny(), 'tokenizer.json': '{"model": ' };
    await expect(previewTokens(new MemorySource(files, 'broken-agent'), null, { kind: 'sft', fileName: 'x.jsonl', text: '{"text": "hi"}', lines: [1] })).rejects.toThrow(/^broken-agent: the tokenizer does not load .*Models panel/);
  });
});
