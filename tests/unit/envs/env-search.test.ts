// The search_qa environment: SQuAD v1.1 normalisation, EM and token F1 against hand-computed
// values, answer extraction, the reward breakdown (correctness, em, f1, format, tool_use), and an
// episode through the real `search` tool over the shipped corpus (BM25, offline).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SearchQaTask } from '../../../src/data/schemas';
import { loadTasks } from '../../../src/data/loader';
import { exactMatch, f1Score, maxOverGolds, normalizeAnswer } from '../../../src/envs/search/squad-metrics';
import { extractQaAnswer, SearchQaEnv } from '../../../src/envs/search/env';
import { createEpisodeState, finishEpisode, stepEnvironment } from '../../../src/envs/episode-steps';
import { CorpusSearch, parseCorpusJsonl } from '../../../src/tools/search/corpus';
import { ToolRegistry } from '../../../src/tools/registry';
import { parseToolCalls } from '../../../src/tools/qwen-tools';
import type { ChatMessage } from '../../../src/agents/chat-template';

describe('SQuAD v1.1 metrics', () => {
  it('normalises like the official script', () => {
    expect(normalizeAnswer('The  Denver Broncos!')).toBe('denver broncos');
    expect(normalizeAnswer("Levi's Stadium, an arena")).toBe('levis stadium arena');
    expect(normalizeAnswer('Theater of the Absurd')).toBe('theater of absurd');
    expect(normalizeAnswer('A.D. 1066')).toBe('ad 1066');
    expect(normalizeAnswer('éa the ña')).toBe('éa ña'); // Unicode word boundaries, as Python's re
  });

  it('computes EM and F1 as hand-computed', () => {
    expect(exactMatch('the Denver Broncos', 'Denver Broncos')).toBe(1);
    expect(exactMatch('Broncos', 'Denver Broncos')).toBe(0);
    // pred {denver, broncos, team} vs gold {denver, broncos}: p = 2/3, r = 1, F1 = 0.8
    expect(f1Score('Denver Broncos team', 'Denver Broncos')).toBeCloseTo(0.8, 12);
    // pred {santa, clara} vs gold {santa, clara, california}: p = 1, r = 2/3, F1 = 0.8
    expect(f1Score('Santa Clara', 'Santa Clara, California')).toBeCloseTo(0.8, 12);
    // tokens are a multiset: pred [new, new, york] vs gold [new, york] share 2: p = 2/3, r = 1, F1 = 0.8
    expect(f1Score('new new york', 'New York')).toBeCloseTo(0.8, 12);
    expect(f1Score('Carolina', 'Denver Broncos')).toBe(0);
    expect(f1Score('the', 'a')).toBe(0); // both normalise to nothing: v1.1 scores 0
    const golds = ['Santa Clara, California', "Levi's Stadium", "Levi's Stadium in the San Francisco Bay Area at Santa Clara, California."];
    const f1 = maxOverGolds(f1Score, 'Levi Stadium', golds);
    console.log(`F1("Levi Stadium", golds) = ${f1}; EM = ${maxOverGolds(exactMatch, 'levis stadium', golds)}`);
    expect(f1).toBeCloseTo(0.5, 12); // {levi, stadium} vs {levis, stadium}: 1 of 2 each side
    expect(maxOverGolds(exactMatch, 'levis stadium', golds)).toBe(1);
  });
});

describe('search_qa answers and rewards', () => {
  const task: SearchQaTask = { task_id: 'q', question: 'Which NFL team represented the AFC at Super Bowl 50?', answers: ['Denver Broncos'], gold_doc_id: 'Super_Bowl_50#0', metadata: {} };
  const backend = new CorpusSearch(parseCorpusJsonl(readFileSync('datasets/squad_corpus.jsonl', 'utf8')));
  const env = new SearchQaEnv({ backend });

  it('extracts <answer>, then "the answer is", then the whole message', () => {
    expect(extractQaAnswer('I think <answer>x</answer> no, <answer> Denver Broncos </answer>')).toEqual({ value: 'Denver Broncos', tagged: true });
    expect(extractQaAnswer('The answer is Denver Broncos.')).toEqual({ value: 'Denver Broncos', tagged: false });
    expect(extractQaAnswer('Denver Broncos')).toEqual({ value: 'Denver Broncos', tagged: false });
  });

  it('scores correct, partial, wrong and malformed answers', () => {
    const right = env.grade(task, '<answer>the Denver Broncos</answer>', 1);
    console.log('right:', JSON.stringify(right));
    expect(right.parts).toEqual({ correctness: 1, em: 1, f1: 1, format: 1, tool_use: 1 });
    expect(right.total).toBeCloseTo(1.2, 12);
    const partial = env.grade(task, '<answer>Broncos</answer>', 0);
    expect(partial.parts).toEqual({ correctness: 2 / 3, em: 0, f1: 2 / 3, format: 1, tool_use: 0 });
    expect(env.grade(task, '<answer>Carolina Panthers</answer>', 1).parts.correctness).toBe(0);
    const malformed = env.grade(task, '<answer></answer>', 0);
    expect(malformed.parts.correctness).toBe(0);
    expect(malformed.notes).toContain('empty answer');
    const em = new SearchQaEnv({ backend, config: { correctness: 'em', toolUse: 'off' } });
    expect(em.grade(task, '<answer>Broncos</answer>', 3).parts).toEqual({ correctness: 0, em: 0, f1: 2 / 3, format: 1 });
  });

  it('runs an episode through the real search tool over the corpus', async () => {
    const registry = new ToolRegistry();
    for (const t of env.tools()) registry.register(t);
    const state = createEpisodeState('ep-search');
    const transcript: ChatMessage[] = env.initialMessages(task);
    const turn1 = 'Let me search.\n<tool_call>\n{"name": "search", "arguments": {"query": "Super Bowl 50 AFC champion"}}\n</tool_call>';
    const results = [];
    for (const call of parseToolCalls(turn1).calls) {
      results.push({ name: call.name, args: call.arguments, ...(await registry.call(call.name, call.arguments, { episodeId: state.episodeId })) });
    }
    expect(results[0].ok).toBe(true);
    expect(results[0].text).toContain('Denver Broncos');
    transcript.push({ role: 'assistant', content: turn1 }, { role: 'tool', content: results[0].text });
    const out1 = await stepEnvironment(env, task, state, turn1, results);
    expect(out1.done).toBe(false);
    const turn2 = '<answer>Denver Broncos</answer>';
    transcript.push({ role: 'assistant', content: turn2 });
    expect((await stepEnvironment(env, task, state, turn2, [])).done).toBe(true);
    const ep = await finishEpisode(env, task, state, transcript);
    console.log(`episode: return ${ep.return}, parts ${JSON.stringify(ep.parts)}`);
    expect(ep.final.parts).toMatchObject({ correctness: 1, tool_use: 1, format: 1 });
    expect(ep.return).toBeCloseTo(1.2, 12);
  });

  it('the shipped eval questions score 1 with their own first answer', () => {
    const { tasks, skipped, total } = loadTasks('search_qa', readFileSync('datasets/squad_qa_eval.jsonl', 'utf8'), 'squad_qa_eval.jsonl');
    expect(skipped).toEqual([]);
    const mean = tasks.reduce((s, t) => s + env.grade(t, `<answer>${t.answers[0]}</answer>`, 1).parts.correctness, 0) / tasks.length;
    console.log(`squad_qa_eval: ${tasks.length}/${total} tasks, mean F1 of answers[0] = ${mean}`);
    expect(mean).toBe(1);
  });
});
