// firstTurns (the Datasets panel's task preview) against the rollout loop itself: collectRollouts
// runs the agent preset's environment (real corpus search) through runEngineRollout on a recording
// engine, and the ids its first step feeds each slot must equal the preview's, tools block included;
// also with model.template plain_no_tools (the tool list left out), env.python_tool on math with a
// rollout.prefill, and a tools.http tool. agent-tiny's tokenizer files; no GPU needed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DecoderEngine, DecodeStepper } from '../../../src/model/engine';
import type { Task } from '../../../src/data/schemas';
import { loadTasks } from '../../../src/data/loader';
import { promptOnlyServices } from '../../../src/envs/prompt-services';
import { MemorySource } from '../../../src/model/io/memory-source';
import { loadTokenizer, type Tokenizer } from '../../../src/model/tokenizer';
import { templateChoice } from '../../../src/agents/chat-template';
import { parseConfig, type RlConfig } from '../../../src/rl/config-validate';
import { buildEnvironment } from '../../../src/rl/env-factory';
import { firstTurns, promptEnvironment } from '../../../src/rl/first-turn';
import { composeHooks } from '../../../src/rl/hooks';
import { collectRollouts } from '../../../src/rl/rollouts';
import { extraTools } from '../../../src/rl/tools-config';
import { CorpusSearch, parseCorpusJsonl } from '../../../src/tools/search/corpus';

const DIR = 'public/models/agent-tiny';
const tokenizer = (): Promise<Tokenizer> =>
  loadTokenizer(new MemorySource(Object.fromEntries(['config.json', 'tokenizer.json', 'tokenizer_config.json'].map((f) => [f, new Uint8Array(readFileSync(`${DIR}/${f}`))])), 'agent-tiny'));
const config = (extra = ''): RlConfig => parseConfig(readFileSync('configs/agent_grpo.yaml', 'utf8') + extra, 'agent_grpo.yaml');
const tasksOf = (env: 'agent' | 'math', file: string, n: number): Task[] => loadTasks(env, readFileSync(file, 'utf8'), file).tasks.slice(0, n);

/** The model stand-in: records what each slot is fed on its first step, then ends every turn at once. */
function recordingEngine(stopId: number): { engine: DecoderEngine; firstFeeds: number[][] } {
  const firstFeeds: number[][] = [];
  const engine: DecoderEngine = {
    label: 'recording', vocabSize: 200_000, maxPositions: 4096, eosTokenIds: [stopId],
    open(B: number): DecodeStepper {
      const lengths = new Int32Array(B);
      return {
        B, lengths,
        step(newTokens) {
          newTokens.forEach((t, s) => {
            if (t.length && lengths[s] === 0) firstFeeds.push(t.slice());
            lengths[s] += t.length;
          });
          return Promise.resolve({ ids: Int32Array.from(newTokens, (t) => (t.length ? stopId : -1)), logprobs: Float32Array.from(newTokens, () => -0.1) });
        },
        reset(s) { lengths[s] = 0; },
        free() {},
      };
    },
  };
  return { engine, firstFeeds };
}

/** What collectRollouts feeds the model for `tasks` under `cfg`, the env built as a run builds it. */
async function loopFeeds(cfg: RlConfig, tok: Tokenizer, tasks: Task[]): Promise<number[][]> {
  const search = new CorpusSearch(parseCorpusJsonl(readFileSync('datasets/agent_corpus.jsonl', 'utf8'), 'agent_corpus.jsonl'));
  const services = { python: promptOnlyServices('this test', 'no tool is called').python, search };
  const env = buildEnvironment(cfg, { ...services, extraTools: extraTools(cfg, search) });
  const { engine, firstFeeds } = recordingEngine(tok.tokenToId('<|im_end|>')!);
  const c: RlConfig = { ...cfg, rollout: { ...cfg.rollout, mode: 'sync', group_size: 1 } };
  await collectRollouts({ cfg: c, tokenizer: tok, env, chat: templateChoice(c.model.template), hooks: composeHooks(), engine }, tasks, 0, { G: 1 });
  return firstFeeds;
}

describe('firstTurns: the preview is what the rollout loop feeds the model', () => {
  it('agent preset: same ids as the loop, with the python and search tools listed', async () => {
    const tok = await tokenizer(), cfg = config(), tasks = tasksOf('agent', 'datasets/agent_train.jsonl', 2);
    const p = promptEnvironment(cfg, 'agent');
    const { turns, tools } = firstTurns(p.cfg, p.env, tok, tasks);
    const fed = await loopFeeds(cfg, tok, tasks);
    const text = tok.decode(turns[0].ids);
    console.log(`agent: ${turns.map((t) => t.ids.length).join(', ')} tokens; tools ${tools.names.join(', ')}; loop fed ${fed.map((f) => f.length).join(', ')}`);
    expect(fed).toHaveLength(2);
    expect(turns.map((t) => t.ids)).toEqual(fed);
    expect(tools).toEqual({ names: ['python', 'search'], listed: true });
    expect(text).toContain('# Tools');
    expect(text).toMatch(/^python\(code\): /m);
    expect(text).toMatch(/^search\(query/m);
    expect(text).toContain((tasks[0] as { question: string }).question);
  });

  it('model.template plain_no_tools: the loop and the preview both leave the tool list out', async () => {
    const tok = await tokenizer(), base = config();
    const cfg: RlConfig = { ...base, model: { ...base.model, template: 'plain_no_tools' } };
    const tasks = tasksOf('agent', 'datasets/agent_train.jsonl', 1);
    const p = promptEnvironment(cfg, 'agent');
    const { turns, tools } = firstTurns(p.cfg, p.env, tok, tasks);
    expect(turns.map((t) => t.ids)).toEqual(await loopFeeds(cfg, tok, tasks));
    expect(tools).toEqual({ names: ['python', 'search'], listed: false });
    expect(tok.decode(turns[0].ids)).not.toContain('python');
  });

  it('math with env.python_tool, rollout.prefill and a tools.http tool: the schema picks the env, the config its tools', async () => {
    const tok = await tokenizer();
    const cfg = config([
      '', 'env:', '  python_tool: true', 'tools:', '  http:',
      '    - {name: weather, description: The weather in a city, url: "http://127.0.0.1:9/w", parameters: {type: object, properties: {city: {type: string}}}}',
    ].join('\n') + '\n');
    const c: RlConfig = { ...cfg, rollout: { ...cfg.rollout, prefill: 'Let me think.' } };
    const tasks = tasksOf('math', 'datasets/gsm8k_train.jsonl', 1);
    const p = promptEnvironment(c, 'math');
    const { turns, tools } = firstTurns(p.cfg, p.env, tok, tasks);
    expect(turns.map((t) => t.ids)).toEqual(await loopFeeds(p.cfg, tok, tasks));
    expect(tools.names).toEqual(['python', 'weather']);
    const forced = tok.encode('Let me think.', { addSpecialTokens: false });
    expect(turns[0].prefillLength).toBe(forced.length);
    expect(turns[0].ids.slice(-forced.length)).toEqual(forced);
    expect(tok.decode(turns[0].ids)).toContain('weather(city): The weather in a city');
  });
});
