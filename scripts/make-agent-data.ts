// `npm run make-agent-data [-- --seed N]`: writes the shipped default agent's data from seeded
// generators (scripts/agent-data/): the fictional corpus (datasets/agent_corpus.jsonl), the
// training tasks (agent_train.jsonl), the held-out tasks (agent_eval.jsonl) and the SFT traces
// (agent_sft.jsonl: one episode per training task, its tool responses produced by the REAL tools
// — the Pyodide python sandbox and BM25 search over the corpus — and checked against the answer).
// Same seed, same bytes. Tested through tests/unit/tooling/agent-data.test.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage } from '../src/agents/chat-template';
import type { AgentTask } from '../src/data/schemas';
import { AgentEnv, FAMILY_TOOL } from '../src/envs/agent/env';
import { createNodePythonPool } from '../src/tools/python/node-pool';
import type { QwenTool } from '../src/tools/qwen-tools';
import { ToolRegistry } from '../src/tools/registry';
import { CorpusSearch } from '../src/tools/search/corpus';
import { mixSeed, mulberry32, permutation } from '../src/util/rng';
import { calculatorTask, lookupTask, type Split } from './agent-data/tasks';
import { makePlaces, placeDoc } from './agent-data/world';

/** How much of each file; changing these (or the seed) changes the shipped files. */
export const AGENT_DATA_SIZES = { places: 460, heldOutPlaces: 60, trainPerFamily: 2500, evalPerFamily: 200 } as const;
export const AGENT_DATA_SEED = 11;

function argSeed(): number {
  const i = process.argv.indexOf('--seed');
  if (i < 0) return AGENT_DATA_SEED;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v)) throw new Error(`--seed must be an integer, got "${process.argv[i + 1]}"`);
  return v;
}

function tasksOf(seed: number, split: Split, perFamily: number, places: ReturnType<typeof makePlaces>): AgentTask[] {
  const rand = mulberry32(mixSeed(seed, split === 'train' ? 1 : 2));
  const tasks: AgentTask[] = [];
  for (let i = 0; i < perFamily; i++) tasks.push(calculatorTask(rand, split, i), lookupTask(rand, split, i, places));
  return permutation(tasks.length, rand).map((i) => tasks[i]);
}

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** One SFT episode: call the family's tool with the task's reference arguments, read it, answer. */
async function trace(task: AgentTask, registry: ToolRegistry, tools: QwenTool[], system: string): Promise<{ messages: ChatMessage[]; tools: QwenTool[] }> {
  const name = FAMILY_TOOL[task.family];
  const args = name === 'python' ? { code: String(task.metadata.code) } : { query: String(task.metadata.query) };
  const r = await registry.call(name, args, { episodeId: task.task_id });
  if (!r.ok) throw new Error(`${task.task_id}: the ${name} tool failed on ${JSON.stringify(args)}: ${r.text}`);
  const found = name === 'python' ? r.text.trim() === task.answer : r.text.includes(task.answer);
  if (!found) throw new Error(`${task.task_id}: the ${name} tool returned ${JSON.stringify(r.text)}, which does not give the answer ${task.answer}`);
  await registry.endEpisode(task.task_id);
  return {
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: task.question },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name, arguments: args } }] },
      { role: 'tool', name, content: r.text },
      // The space after <answer> makes a name's first word the same tokens as in the tool response.
      { role: 'assistant', content: `<answer> ${task.answer}</answer>` },
    ],
    tools,
  };
}

async function main(): Promise<void> {
  const seed = argSeed();
  const S = AGENT_DATA_SIZES;
  const places = makePlaces(seed, S.places, S.heldOutPlaces);
  const docs = places.map(placeDoc);
  const train = tasksOf(seed, 'train', S.trainPerFamily, places);
  const evalTasks = tasksOf(seed, 'eval', S.evalPerFamily, places);

  const pool = createNodePythonPool({ workers: 1 });
  await pool.ready();
  try {
    const env = new AgentEnv({ python: pool, search: new CorpusSearch(docs) });
    const registry = new ToolRegistry();
    for (const t of env.tools()) registry.register(t);
    const tools = registry.tools();
    const system = env.systemPrompt(train[0]);
    const traces = [];
    for (const [i, task] of train.entries()) {
      traces.push(await trace(task, registry, tools, system));
      if (i % 500 === 499) process.stderr.write(`traces ${i + 1}/${train.length}\n`);
    }
    const dir = 'datasets';
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'agent_corpus.jsonl'), jsonl(docs));
    writeFileSync(join(dir, 'agent_train.jsonl'), jsonl(train));
    writeFileSync(join(dir, 'agent_eval.jsonl'), jsonl(evalTasks));
    writeFileSync(join(dir, 'agent_sft.jsonl'), jsonl(traces));
    process.stderr.write(`seed ${seed}: ${docs.length} corpus docs, ${train.length} train tasks, ${evalTasks.length} held-out tasks, ${traces.length} SFT traces\n`);
  } finally {
    await pool.close();
  }
}

await main();
