// Environments inside the real agent loop (runEpisodes, Qwen2.5 tokenizer and chat template, the
// real search tool over the shipped corpus): the policy is a scripted stepper (the only double:
// it returns scripted tokens where the GPU would sample). Checks that envRollout's prompts,
// registry and hook drive the episodes and that rewards() grades each one from its messages.
import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { toolSpecs } from '../../../src/agents/gpu-rollout';
import { runEpisodes } from '../../../src/agents/loop';
import { TurnRenderer } from '../../../src/agents/turn-render';
import type { SearchQaTask } from '../../../src/data/schemas';
import { MathEnv } from '../../../src/envs/math/env';
import { envRollout } from '../../../src/envs/rollout';
import { SearchQaEnv } from '../../../src/envs/search/env';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { loadTokenizer, type Tokenizer } from '../../../src/model/tokenizer';
import { CorpusSearch, parseCorpusJsonl } from '../../../src/tools/search/corpus';
import { ScriptedStepper } from '../../fixtures/scripted-stepper';
import { sharedPath } from '../../fixtures/shared';

const DIR = sharedPath('models/qwen2.5-tokenizer');
const END = '<|im_end|>';

let tok: Tokenizer;
let template: string;

describe.skipIf(!existsSync(DIR))('environments in the agent loop', () => {
  beforeAll(async () => {
    tok = await loadTokenizer(new NodeDirSource(DIR));
    template = readFileSync(`${DIR}/chat_template.jinja`, 'utf8');
  });

  async function run(turns: string[][], r: ReturnType<typeof envRollout>, G: number) {
    const renderer = new TurnRenderer(tok, { tools: toolSpecs(r.registry), template });
    const scripts = turns.map((ts) => ts.flatMap((t) => tok.encode(t, { addSpecialTokens: false })));
    return runEpisodes({ stepper: new ScriptedStepper(scripts.length, scripts), renderer, registry: r.registry, prompts: r.prompts, config: { temperature: 0, samplesPerPrompt: G }, hooks: r.hooks });
  }

  it('search_qa: G = 2 episodes of one task, searched + right vs unsearched + wrong', async () => {
    const env = new SearchQaEnv({ backend: new CorpusSearch(parseCorpusJsonl(readFileSync('datasets/squad_corpus.jsonl', 'utf8'))) });
    const task: SearchQaTask = { task_id: 'sb50', question: 'Which NFL team represented the AFC at Super Bowl 50?', answers: ['Denver Broncos'], metadata: {} };
    const r = envRollout(env, [task], 2);
    expect(r.registry.names).toEqual(['search']);
    const batch = await run([
      [`<tool_call>\n{"name": "search", "arguments": {"query": "AFC champion Super Bowl 50"}}\n</tool_call>${END}`, `<answer>Denver Broncos</answer>${END}`],
      [`<tool_call>\n{"name": "search", "arguments": {"query": }\n</tool_call>${END}`, `<answer>Carolina Panthers</answer>${END}`],
    ], r, 2);
    const rewards = await r.rewards(batch.episodes);
    for (const [i, e] of batch.episodes.entries()) {
      console.log(`episode ${i}: ${e.finishReason}, ${e.turns} turns, return ${rewards[i].return.toFixed(3)}, final ${JSON.stringify(rewards[i].final.parts)}, turns ${rewards[i].turns.map((t) => t.total).join(',')}`);
    }
    expect(batch.episodes.map((e) => e.finishReason)).toEqual(['answer', 'answer']);
    expect(batch.episodes[0].messages.find((m) => m.role === 'tool')?.content).toContain('Denver Broncos'); // the corpus hit the model read
    expect(rewards[0].final.parts).toEqual({ correctness: 1, em: 1, f1: 1, format: 1, tool_use: 1 });
    expect(rewards[0].return).toBeCloseTo(1.2, 12);
    expect(rewards[1].final.parts).toMatchObject({ correctness: 0, tool_use: 0 });
    expect(rewards[1].turns[0].parts).toEqual({ tool_errors: 1 }); // the malformed call
    expect(rewards[1].return).toBeCloseTo(0.1 - 0.1, 12);
    expect(r.states.get(1)?.malformedCalls).toBe(1);
  });

  it('math: two tasks, answers graded per task', async () => {
    const env = new MathEnv();
    const tasks = [
      { task_id: 'a', question: 'What is 2 + 3?', answer: '5', metadata: {} },
      { task_id: 'b', question: 'What is 1,000 + 234?', answer: '1234', metadata: {} },
    ];
    const r = envRollout(env, tasks, 1);
    expect(r.prompts[1].messages[1].content).toBe('What is 1,000 + 234?');
    const batch = await run([[`2 + 3 = 5, so \\boxed{5}${END}`], [`The answer is 1,243.${END}`]], r, 1);
    const rewards = await r.rewards(batch.episodes);
    console.log(`math returns: ${rewards.map((x) => x.return).join(', ')}`);
    expect(rewards.map((x) => x.final.parts.correctness)).toEqual([1, 0]);
    expect(rewards[0].return).toBeCloseTo(1.1, 12);
  });
});
