// An agent written against the `openai` npm package, trained through `npm run cli -- serve`
// without changing its code: for each task of a JSONL file (default the shipped agent's held-out
// tasks, datasets/agent_eval.jsonl) it runs k rollouts of a multi-turn tool loop with the agent
// env's two tools (python, run in our Pyodide sandbox in a separate process, never host python3;
// search over datasets/agent_corpus.jsonl), grades the final message as the agent env does and
// posts the reward to /v1/rollouts/{id}/reward. Rollouts and tasks are named by headers, so the
// server groups the traces for `train-traces` or `serve --online` (GRPO over a task's rollouts).
//
//   npm run cli -- serve --model public/models/agent-tiny --max-context 512 [--online ...]
//   npx tsx examples/openai-tool-agent.ts --model agent-tiny [--base-url http://127.0.0.1:8000/v1] \
//       [--tasks datasets/agent_eval.jsonl] [--num-tasks 4] [--samples 4] [--max-turns 2] [--temperature 1]
//       [--concurrency 1]   (rollouts at once; the server decodes concurrent requests together)
//
// Tested by tests/unit/server/serve-agent-example.test.ts (runAgent against serve on agent-tiny).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import type { AgentTask } from '../src/data/schemas';
import { AgentEnv, AGENT_SYSTEM_PROMPT } from '../src/envs/agent/env';
import type { Tool } from '../src/tools/registry';
import { announceSandbox, createNodePythonPool } from '../src/tools/python/node-pool';
import { CorpusSearch, parseCorpusJsonl } from '../src/tools/search/corpus';

export interface AgentRunOptions {
  baseURL: string;
  model: string;
  apiKey?: string;
  tasks: AgentTask[];
  samples: number;
  maxTurns: number;
  temperature: number;
  /** Tokens per assistant turn. */
  maxTokens: number;
  corpusFile: string;
  log: (line: string) => void;
  /** Rollouts run at once (default 1: one after another). */
  concurrency?: number;
}

export interface RolloutOutcome {
  rolloutId: string;
  taskId: string;
  family: AgentTask['family'];
  reward: number;
  correct: boolean;
  turns: number;
  /** Tool calls made / that ran without error, by tool name. */
  calls: string[];
  okCalls: string[];
  answer: string;
}

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const asOpenAiTool = (t: Tool): OpenAI.Chat.Completions.ChatCompletionTool => ({
  type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown> },
});

/** One rollout: the tool loop until the model answers without a call (or turns run out). */
async function rollout(client: OpenAI, o: AgentRunOptions, tools: Tool[], task: AgentTask, rolloutId: string): Promise<{ answer: string; turns: number; calls: string[]; okCalls: string[] }> {
  const messages: Message[] = [{ role: 'system', content: AGENT_SYSTEM_PROMPT }, { role: 'user', content: task.question }];
  const calls: string[] = [], okCalls: string[] = [];
  for (let turn = 1; turn <= o.maxTurns; turn++) {
    const r = await client.chat.completions.create({ model: o.model, messages, tools: tools.map(asOpenAiTool), temperature: o.temperature, max_tokens: o.maxTokens });
    const msg = r.choices[0].message;
    messages.push(msg);
    const toolCalls = (msg.tool_calls ?? []).filter((c) => c.type === 'function');
    if (!toolCalls.length) return { answer: msg.content ?? '', turns: turn, calls, okCalls };
    for (const c of toolCalls) {
      calls.push(c.function.name);
      const tool = tools.find((t) => t.name === c.function.name);
      let text: string;
      if (!tool) text = `error: unknown tool ${c.function.name}; use ${tools.map((t) => t.name).join(' or ')}`;
      else {
        let args: Record<string, unknown> = {};
        try {
          args = JSON.parse(c.function.arguments) as Record<string, unknown>;
        } catch {
          args = {};
        }
        const out = await tool.call(args, { episodeId: rolloutId });
        if (out.ok) okCalls.push(tool.name);
        text = out.text;
      }
      messages.push({ role: 'tool', tool_call_id: c.id, content: text });
    }
  }
  return { answer: '', turns: o.maxTurns, calls, okCalls };
}

/** Runs `samples` rollouts per task against the server and posts each reward; returns the outcomes. */
export async function runAgent(o: AgentRunOptions): Promise<RolloutOutcome[]> {
  announceSandbox(o.log);
  const python = createNodePythonPool({ workers: 1, timeoutMs: 10_000 });
  const env = new AgentEnv({ python, search: new CorpusSearch(parseCorpusJsonl(readFileSync(o.corpusFile, 'utf8'), o.corpusFile)) });
  const tools = env.tools();
  const apiKey = o.apiKey ?? 'none';
  try {
    await python.ready();
    // Every (task, sample) is one job; `concurrency` of them run at once (the server batches their requests).
    const jobs = o.tasks.flatMap((task) => Array.from({ length: o.samples }, (_, k) => ({ task, k })));
    const results: RolloutOutcome[] = new Array<RolloutOutcome>(jobs.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let j = next++; j < jobs.length; j = next++) {
        const { task, k } = jobs[j];
        const rolloutId = `${task.task_id}-${Date.now().toString(36)}-${k}`;
        // The same agent code; only the headers tell the server which rollout and task a call belongs to.
        const client = new OpenAI({ baseURL: o.baseURL, apiKey, maxRetries: 0, defaultHeaders: { 'x-rollout-id': rolloutId, 'x-task-id': task.task_id } });
        const res = await rollout(client, o, tools, task, rolloutId);
        for (const t of tools) await t.endEpisode?.(rolloutId);
        const graded = env.grade(task, res.answer, res.okCalls);
        const post = await fetch(`${o.baseURL}/rollouts/${encodeURIComponent(rolloutId)}/reward`, {
          method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify({ reward: graded.total }),
        });
        if (!post.ok) throw new Error(`posting the reward of ${rolloutId} failed: ${post.status} ${await post.text()}`);
        results[j] = { rolloutId, taskId: task.task_id, family: task.family, reward: graded.total, correct: graded.parts.correctness === 1, answer: res.answer, turns: res.turns, calls: res.calls, okCalls: res.okCalls };
        o.log(`${rolloutId}: reward ${graded.total.toFixed(2)} (${Object.entries(graded.parts).map(([p, v]) => `${p} ${v}`).join(', ')}), ${res.turns} turns, calls [${res.calls.join(', ')}], answer ${JSON.stringify(res.answer.slice(0, 80))}`);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency ?? 1, jobs.length)) }, worker));
    return results;
  } finally {
    await python.close();
  }
}

/** The tasks of a JSONL file, the first n of them (all when n <= 0). */
export function readTasks(file: string, n: number): AgentTask[] {
  const all = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as AgentTask);
  return n > 0 ? all.slice(0, n) : all;
}

/** Success overall and per family, mean reward and tool calls per rollout, as one line. */
export function summarize(outcomes: readonly RolloutOutcome[]): string {
  const right = (xs: readonly RolloutOutcome[]) => {
    const ok = xs.filter((x) => x.correct).length;
    return `${ok}/${xs.length} (${((100 * ok) / Math.max(1, xs.length)).toFixed(1)} %)`;
  };
  const per = (f: (x: RolloutOutcome) => number) => (outcomes.reduce((a, x) => a + f(x), 0) / Math.max(1, outcomes.length));
  const families = [...new Set(outcomes.map((x) => x.family))].map((f) => `${f} ${right(outcomes.filter((x) => x.family === f))}`);
  return `success ${right(outcomes)} (${families.join(', ')}), mean reward ${per((x) => x.reward).toFixed(3)}, tool calls per rollout ${per((x) => x.calls.length).toFixed(2)}`;
}

function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : fallback;
  if (v === undefined) throw new Error(`--${name} is required (see the usage at the top of examples/openai-tool-agent.ts)`);
  return v;
}

async function main(): Promise<void> {
  const outcomes = await runAgent({
    baseURL: arg('base-url', 'http://127.0.0.1:8000/v1'), model: arg('model'), ...(process.env.OPENAI_API_KEY ? { apiKey: process.env.OPENAI_API_KEY } : {}),
    tasks: readTasks(arg('tasks', 'datasets/agent_eval.jsonl'), Number(arg('num-tasks', '4'))), samples: Number(arg('samples', '4')), maxTurns: Number(arg('max-turns', '2')),
    temperature: Number(arg('temperature', '1')), maxTokens: Number(arg('max-tokens', '64')), corpusFile: arg('corpus', 'datasets/agent_corpus.jsonl'),
    concurrency: Number(arg('concurrency', '1')), log: (l) => console.log(l),
  });
  console.log(summarize(outcomes));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error((e as Error).message);
    process.exit(1);
  });
}
