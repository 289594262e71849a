// SFT data: Qwen2.5 chat rendering with assistant-only masks (a tool-call trace included), the
// plain fallback on the stories260K tokenizer, text and pre-tokenized lines, per-line errors by
// line number and field, truncation, the masked_ce mask convention, seeded batching/resume, and
// model.template (auto / plain / plain_no_tools) applied to SFT lines.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { MemorySource } from '../../../src/model/io/memory-source';
import { loadTokenizer, type Tokenizer } from '../../../src/model/tokenizer';
import { renderChat, type ChatMessage } from '../../../src/agents/chat-template';
import { tokenizeChat } from '../../../src/train/chat-mask';
import { describeSftDataset, readSftJsonl } from '../../../src/train/data';
import { SftBatcher, epochOrder } from '../../../src/train/batches';
import { masked_ce } from '../../../src/reference/loss';
import { sharedPath } from '../../fixtures/shared';
import { DEFAULT_CONFIG } from '../../../src/rl/config-schema';
import { sftTemplateOf } from '../../../src/run/trainer-settings';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

const QWEN = sharedPath('models/qwen2.5-tokenizer');
const MIXED = readFileSync(join(__dirname, '../../fixtures/train/sft-mixed.jsonl'), 'utf8');
const trained = (tok: Tokenizer, ids: number[], tokenMask: number[]) => tok.decode(ids.filter((_, i) => tokenMask[i] === 1));
const untrained = (tok: Tokenizer, ids: number[], tokenMask: number[]) => tok.decode(ids.filter((_, i) => tokenMask[i] === 0));

describe.skipIf(!existsSync(QWEN))('SFT chat data with the Qwen2.5 template', () => {
  let qwen: Tokenizer;
  beforeAll(async () => {
    qwen = await loadTokenizer(new NodeDirSource(QWEN));
  });

  it('masks exactly the assistant tokens, <|im_end|> included, and tokenizes like the whole text', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 2+2?' },
      { role: 'assistant', content: 'It is 4.' },
      { role: 'user', content: 'And 3+3?' },
      { role: 'assistant', content: '6' },
    ];
    const { ids, tokenMask } = tokenizeChat(qwen, messages);
    expect(ids).toEqual(qwen.encode(renderChat(qwen.chatTemplate, messages), { addSpecialTokens: false }));
    expect(trained(qwen, ids, tokenMask)).toBe('It is 4.<|im_end|>6<|im_end|>');
    // Headers, other turns and the newline after <|im_end|> stay at 0.
    expect(untrained(qwen, ids, tokenMask)).toBe('<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n\n<|im_start|>user\nAnd 3+3?<|im_end|>\n<|im_start|>assistant\n\n');
    // Each trained run starts right after "<|im_start|>assistant\n".
    const im = qwen.tokenToId('<|im_start|>')!;
    for (let t = 1; t < ids.length; t++) if (tokenMask[t] === 1 && tokenMask[t - 1] === 0) expect(ids[t - 3]).toBe(im);
  });

  it('renders a tool-call trace through the template with tool output at mask 0', () => {
    const ds = readSftJsonl(MIXED, 'sft-mixed.jsonl', { tokenizer: qwen, maxLength: 4096 });
    const ex = ds.examples.find((e) => e.line === 2)!;
    const tokenMask = [0, ...ex.mask];
    const text = qwen.decode(ex.ids);
    expect(text).toContain('# Tools');
    expect(text).toContain('<tool_response>\n[Super Bowl 50]');
    expect(trained(qwen, ex.ids, tokenMask)).toBe('<tool_call>\n{"name": "search", "arguments": {"query": "AFC Super Bowl 50"}}\n</tool_call><|im_end|>The Denver Broncos.<|im_end|>');
    expect(untrained(qwen, ex.ids, tokenMask)).toContain('<|im_start|>user\n<tool_response>\n[Super Bowl 50] The American Football Conference (AFC) champion Denver Broncos defeated ...\n</tool_response><|im_end|>');
    console.log(`tool trace: ${ex.ids.length} tokens, ${ex.mask.reduce((a, b) => a + b, 0)} trained`);
  });

  it('uses masked_ce\'s convention: mask[t] trains log p(ids[t+1] | ids[..t]), length T-1', () => {
    const ds = readSftJsonl(MIXED, 'sft-mixed.jsonl', { tokenizer: qwen, maxLength: 4096 });
    const ex = ds.examples.find((e) => e.line === 1)!;
    expect(ex.mask.length).toBe(ex.ids.length - 1);
    const targets = ex.ids.slice(1).filter((_, t) => ex.mask[t] === 1);
    expect(qwen.decode(targets)).toBe('4<|im_end|>');
    // Log-prob rows that are -1 exactly where a target is trained: the loss is 1 and counts 2 tokens.
    const logp = ex.mask.map((m) => (m ? -1 : -100));
    const ce = masked_ce([logp], [ex.mask]);
    expect(ce.nTokens).toBe(2);
    expect(ce.loss).toBeCloseTo(1, 12);
  });

  it('reads every line format, skips bad lines with file:line and field, truncates and counts', () => {
    const ds = readSftJsonl(MIXED, 'data.jsonl', { tokenizer: qwen, maxLength: 40 });
    console.log(describeSftDataset(ds, 20));
    expect(ds.lines).toBe(16);
    expect(ds.examples.map((e) => e.line)).toEqual([1, 3, 4, 15, 16]);
    const reasons = Object.fromEntries(ds.skipped.map((s) => [s.line, s.reason]));
    expect(reasons[6]).toMatch(/^data\.jsonl:6: not valid JSON/);
    expect(reasons[7]).toBe('data.jsonl:7: "messages"[2].role is "robot"; use system, user, assistant or tool');
    expect(reasons[8]).toBe('data.jsonl:8: "messages" has no assistant message: nothing to train on');
    expect(reasons[9]).toMatch(/^data\.jsonl:9: "messages" and "text" are both set/);
    expect(reasons[10]).toBe('data.jsonl:10: "ids"[1] is -1; expected a token id in [0, 151665)');
    expect(reasons[11]).toBe('data.jsonl:11: "mask" has 1 values for 3 ids; expected 3 (one per token) or 2 (one per predicted token)');
    expect(reasons[12]).toBe('data.jsonl:12: "mask"[1] is 0.5; expected 0 or 1');
    expect(reasons[13]).toMatch(/^data\.jsonl:13: "messages"\[1\]\.tool_calls\[0\]\.function\.arguments is the string .* which is not JSON/);
    expect(reasons[14]).toBe('data.jsonl:14: "text" is ""; expected a non-empty string');
    expect(reasons[17]).toBe('data.jsonl:17: "ids" has no trained token (every mask value is 0)');
    // Line 2 (the tool trace, > 40 tokens) has assistant tokens only past the cut: skipped, not silently kept.
    expect(reasons[2]).toMatch(/no trained token in its first 40 tokens/);
    expect(ds.skipped.length).toBe(11);
    expect(ds.truncated).toBe(1);

    const byLine = (l: number) => ds.examples.find((e) => e.line === l)!;
    const text = byLine(3);
    expect(text.ids).toEqual(qwen.encode('Once upon a time there was a little robot.'));
    expect(text.mask).toEqual(text.ids.slice(1).map(() => 1));
    expect(byLine(4)).toMatchObject({ ids: [5, 6, 7, 8], mask: [0, 1, 1], format: 'ids' }); // per-token mask shifted
    expect(byLine(16)).toMatchObject({ ids: [9, 10, 11], mask: [1, 0] }); // per-row mask as is
    const long = byLine(15);
    expect(long.truncated).toBe(true);
    expect(long.ids.length).toBe(40);
    expect(long.mask.length).toBe(39);
    expect(ds.tokens).toBe(ds.examples.reduce((a, e) => a + e.ids.length, 0));
  });
});

describe.skipIf(!existsSync(STORIES_DIR))('SFT chat data with the plain fallback template (stories260K tokenizer)', () => {
  it('trains the assistant text after "assistant:" and keeps BOS and the user turn at 0', async () => {
    const tok = await loadTokenizer(new MemorySource({ 'tok512.bin': new Uint8Array(readFileSync(`${STORIES_DIR}/tok512.bin`)) }));
    expect(tok.chatTemplate).toBeUndefined();
    const messages: ChatMessage[] = [{ role: 'user', content: 'Hello' }, { role: 'assistant', content: 'Hi there' }];
    const { ids, tokenMask } = tokenizeChat(tok, messages);
    expect(ids).toEqual(tok.encode('user: Hello\nassistant: Hi there\n', { addSpecialTokens: true }));
    expect(ids[0]).toBe(tok.bosTokenId);
    expect(trained(tok, ids, tokenMask).trim()).toBe('Hi there');
    expect(untrained(tok, ids, tokenMask)).toContain('user: Hello\nassistant:');
    const ds = readSftJsonl(JSON.stringify({ messages }) + '\n', 'plain.jsonl', { tokenizer: tok, maxLength: 64 });
    expect(ds.examples[0].mask).toEqual(tokenMask.slice(1));
    console.log(`plain fallback: ${ids.length} tokens, trained ${JSON.stringify(trained(tok, ids, tokenMask))}`);
  });
});

describe('seeded shuffling and batching', () => {
  it('is deterministic, covers every example once per epoch and resumes from a cursor', () => {
    const a = new SftBatcher(10, { batchSize: 4, seed: 7 });
    const b = new SftBatcher(10, { batchSize: 4, seed: 7 });
    const seqA = Array.from({ length: 7 }, () => a.next());
    expect(Array.from({ length: 7 }, () => b.next())).toEqual(seqA);
    expect(seqA.map((x) => x.indices.length)).toEqual([4, 4, 2, 4, 4, 2, 4]);
    for (const e of [0, 1]) {
      const seen = seqA.filter((x) => x.epoch === e).flatMap((x) => x.indices).sort((x, y) => x - y);
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
    expect(epochOrder(10, 7, 0)).not.toEqual(epochOrder(10, 7, 1));
    expect(epochOrder(10, 7, 0)).not.toEqual(epochOrder(10, 8, 0));

    // Resume after 4 batches: the rest of the stream is identical.
    const c = new SftBatcher(10, { batchSize: 4, seed: 7 });
    for (let i = 0; i < 4; i++) c.next();
    const resumed = new SftBatcher(10, { batchSize: 4, seed: 7 }, JSON.parse(JSON.stringify(c.cursor)));
    expect(Array.from({ length: 3 }, () => resumed.next())).toEqual(seqA.slice(4));
    expect(() => new SftBatcher(10, { batchSize: 4, seed: 8 }, c.cursor)).toThrow(/seed 7/);

    const d = new SftBatcher(10, { batchSize: 4, seed: 7, dropLast: true, shuffle: false });
    expect([d.next(), d.next(), d.next()].map((x) => x.indices)).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [0, 1, 2, 3]]);
  });
});

describe('SFT data follows model.template (sftTemplateOf), as the RL agent loop does', () => {
  it('auto: the tokenizer\'s template with the tool list; plain: role: content with a # Tools block and the call as text; plain_no_tools: no tool list', async () => {
    const tok = await loadTokenizer(new NodeDirSource('public/models/agent-tiny'));
    const line = readFileSync('datasets/agent_sft.jsonl', 'utf8').split('\n')[0] + '\n';
    const text = (template: 'auto' | 'plain' | 'plain_no_tools') => {
      const cfg = structuredClone(DEFAULT_CONFIG);
      cfg.model.template = template;
      const ds = readSftJsonl(line, 'agent_sft.jsonl', { tokenizer: tok, maxLength: 2048, ...sftTemplateOf(cfg) });
      return tok.decode(ds.examples[0].ids);
    };
    const auto = text('auto'), plain = text('plain'), bare = text('plain_no_tools');
    console.log(`model.template auto / plain / plain_no_tools: ${[auto, plain, bare].map((t) => tok.encode(t, { addSpecialTokens: false }).length).join(' / ')} tokens`);
    expect(auto).toContain('<|im_start|>system');
    expect(auto).toContain('python(code)');
    expect(plain).not.toContain('<|im_start|>');
    expect(plain).toContain('# Tools');
    expect(plain).toContain('assistant:');
    expect(bare).not.toContain('# Tools');
    expect(bare).not.toContain('Search the fact corpus');
    // The plain template renders content only: the tool call is written as the model writes one.
    for (const t of [plain, bare]) expect(t).toContain('assistant: <tool_call>\n{"name": "python", "arguments": {"code": "print(52 * 40 + 52)"}}\n</tool_call>\ntool: 2132\nassistant: <answer> 2132</answer>');
  });
});
