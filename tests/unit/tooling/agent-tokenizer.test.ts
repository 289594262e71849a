// The shipped agent's tokenizer (public/models/agent-tiny, built by scripts/make-agent-tokenizer.ts)
// and its chat template inside the REAL agent loop: the tokenizer loads through the engine's
// loader with one id per chat/tool special token; our BPE trainer and @huggingface/tokenizers
// agree on a toy corpus; and SFT traces replayed through runEpisodes (real registry, real BM25
// search over the shipped corpus, real Pyodide python; the policy is a scripted stepper, the only
// double) give exactly the token ids the SFT data renders, with rewards 1.2 from the agent env.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderChat, type ChatMessage } from '../../../src/agents/chat-template';
import { toolSpecs } from '../../../src/agents/gpu-rollout';
import { runEpisodes } from '../../../src/agents/loop';
import { TurnRenderer } from '../../../src/agents/turn-render';
import { loadTasks } from '../../../src/data/loader';
import { AgentEnv } from '../../../src/envs/agent/env';
import { envRollout } from '../../../src/envs/rollout';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { byteLevelBpeJson } from '../../../src/model/tokenizer/json';
import { loadTokenizer, Tokenizer } from '../../../src/model/tokenizer';
import { createNodePythonPool } from '../../../src/tools/python/node-pool';
import type { PythonPool } from '../../../src/tools/python/pool';
import { CorpusSearch, parseCorpusJsonl } from '../../../src/tools/search/corpus';
import { trainByteLevelBpe } from '../../../scripts/agent-data/bpe';
import { ScriptedStepper } from '../../fixtures/scripted-stepper';
import { AGENT_SPECIAL_TOKENS, AGENT_SPLIT_REGEX } from '../../../scripts/agent-data/tokenizer-spec';

const DIR = 'public/models/agent-tiny';
const END = '<|im_end|>';

let tok: Tokenizer;
let pool: PythonPool;

describe('agent-tiny tokenizer and chat template', () => {
  beforeAll(async () => {
    tok = await loadTokenizer(new NodeDirSource(DIR));
    pool = createNodePythonPool({ workers: 1 });
    await pool.ready();
  }, 60_000);
  afterAll(async () => {
    await pool.close();
  });

  it('has a 1024-token vocabulary with one id per chat and tool token, EOS <|im_end|>', () => {
    expect(tok.vocabSize).toBe(1024);
    for (const [t] of AGENT_SPECIAL_TOKENS) {
      const id = tok.tokenToId(t);
      expect(id, t).toBeDefined();
      expect(tok.encode(`a${t}b`, { addSpecialTokens: false })).toContain(id);
    }
    expect(tok.eosTokenIds).toEqual([tok.tokenToId(END)]);
    expect(tok.bosTokenId).toBeUndefined();
    // Digits are split one by one and everything round-trips, names never seen included.
    const text = 'Zyxquo Brendalf has 98765 stamps: ünïcode ✓';
    const ids = tok.encode(text);
    expect(tok.decode(ids)).toBe(text);
    expect(ids.filter((i) => /^[0-9]$/.test(tok.idToToken(i) ?? '')).length).toBe(5);
  });

  it('our BPE trainer and @huggingface/tokenizers split a toy corpus the same way', () => {
    const texts = ['the cat sat on the mat', 'the cat ate 42 rats', 'a mat, a cat, a hat'];
    const bpe = trainByteLevelBpe(texts, AGENT_SPLIT_REGEX, 256 + 20);
    expect(bpe.merges.length).toBe(8); // then no pair occurs twice
    expect(bpe.merges[0]).toEqual(['a', 't']); // the most frequent pair (9 times)
    const again = trainByteLevelBpe(texts, AGENT_SPLIT_REGEX, 256 + 20);
    expect(again).toEqual(bpe);
    const hf = new Tokenizer(byteLevelBpeJson(bpe.vocab, bpe.merges, [], AGENT_SPLIT_REGEX));
    const pieces = hf.encode('the cat sat').map((i) => hf.idToToken(i));
    console.log(`toy merges: ${bpe.merges.map((m) => m.join('+')).join(' ')}; "the cat sat" -> ${pieces.join('|')}`);
    expect(pieces).toEqual(['the', 'Ġcat', 'Ġ', 's', 'at']); // merges applied in order: a+t, then no Ġ+s merge exists
  });

  it('SFT traces replayed through the agent loop give the SFT token ids, and the env grades them right', async () => {
    const docs = parseCorpusJsonl(readFileSync('datasets/agent_corpus.jsonl', 'utf8'));
    const env = new AgentEnv({ python: pool, search: new CorpusSearch(docs) });
    const traces = readFileSync('datasets/agent_sft.jsonl', 'utf8').split('\n').slice(0, 6).map((l) => JSON.parse(l) as { messages: ChatMessage[] });
    const tasks = loadTasks('agent', readFileSync('datasets/agent_train.jsonl', 'utf8').split('\n').slice(0, 6).join('\n'), 'agent_train.jsonl').tasks;
    expect(new Set(tasks.map((t) => t.family))).toEqual(new Set(['calculator', 'lookup']));
    const r = envRollout(env, tasks, 1);
    const renderer = new TurnRenderer(tok, { tools: toolSpecs(r.registry) });
    // The assistant turns as the model must write them: what the template adds for each one.
    const tools = toolSpecs(r.registry);
    const scripts = traces.map((t) => t.messages.flatMap((m, i) => {
      if (m.role !== 'assistant') return [];
      const before = renderChat(tok.chatTemplate, t.messages.slice(0, i), { tools, addGenerationPrompt: true });
      const upTo = renderChat(tok.chatTemplate, t.messages.slice(0, i + 1), { tools });
      return tok.encode(upTo.slice(before.length).replace(/\n$/, ''), { addSpecialTokens: false });
    }));
    const batch = await runEpisodes({ stepper: new ScriptedStepper(tasks.length, scripts), renderer, registry: r.registry, prompts: r.prompts, config: { temperature: 0, maxTurns: 3 }, hooks: r.hooks });
    const rewards = await r.rewards(batch.episodes);
    batch.episodes.forEach((ep, i) => {
      const sft = tok.encode(renderChat(tok.chatTemplate, traces[i].messages, { tools }).replace(/\n$/, ''));
      console.log(`${tasks[i].task_id}: ${ep.tokens.length} tokens (SFT rendering ${sft.length}), ${ep.turns} turns, return ${rewards[i].return.toFixed(2)}, answer ${ep.finalText}`);
      expect(ep.tokens).toEqual(sft);
      expect(ep.toolCalls.map((c) => [c.name, c.ok])).toEqual([[tasks[i].family === 'calculator' ? 'python' : 'search', true]]);
      expect(rewards[i].final.parts).toEqual({ correctness: 1, format: 1, tool_use: 1 });
      expect(rewards[i].return).toBeCloseTo(1.2, 12);
    });
  }, 60_000);
});
