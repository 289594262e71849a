// An agent written only against the `openai` npm package, trained through `npm run cli -- serve`
// without changing its code: for each task of a JSONL file it runs k rollouts of a multi-turn
// tool loop (the model may call `python`; the agent runs the code itself in a python3 process
// with a time limit and hands back stdout), then scores the final answer and posts the reward to
// the server's /v1/rollouts/{id}/reward. Rollouts and tasks are named by headers, so the server
// groups the traces for `npm run cli -- train-traces` (GRPO over rollouts of the same task).
//
//   npx tsx examples/openai-tool-agent.ts --base-url http://127.0.0.1:8000/v1 --model NAME \
//       --tasks examples/tasks.jsonl [--samples 4] [--max-turns 4] [--temperature 1]
//
// WARNING: the python tool runs model-written code on this machine (python3 -I, empty
// environment, 10 s limit): use a container or a machine you can throw away.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';

interface AgentTask {
  task_id: string;
  question: string;
  /** The final answer counts as right when it contains this text. */
  answer: string;
}

const PYTHON_TOOL: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'python',
    description: 'Run Python 3 code and return what it prints.',
    parameters: { type: 'object', properties: { code: { type: 'string', description: 'the program; print the result' } }, required: ['code'] },
  },
};

function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : fallback;
  if (v === undefined) throw new Error(`--${name} is required (see the usage at the top of examples/openai-tool-agent.ts)`);
  return v;
}

/** Runs code in a fresh python3 process: stdout (and stderr) capped at 4 KB, 10 s limit. */
function runPython(code: string): Promise<string> {
  return new Promise((resolve) => {
    const p = spawn('python3', ['-I', '-c', code], { env: {}, timeout: 10_000 });
    let out = '';
    const take = (c: Buffer) => { if (out.length < 4096) out += c.toString('utf8'); };
    p.stdout.on('data', take);
    p.stderr.on('data', take);
    p.on('error', (e) => resolve(`error: could not start python3 (${e.message})`));
    p.on('close', (status, signal) => resolve((signal ? `${out}\nerror: stopped after 10 s` : out).slice(0, 4096) || `(no output, exit ${status})`));
  });
}

/** One rollout: the tool loop until the model answers without a call (or turns run out). */
async function rollout(client: OpenAI, model: string, task: AgentTask, maxTurns: number, temperature: number): Promise<{ answer: string; turns: number; calls: number }> {
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'Solve the problem. Use the python tool to compute; end with the final answer.' },
    { role: 'user', content: task.question },
  ];
  let calls = 0;
  for (let turn = 1; turn <= maxTurns; turn++) {
    const r = await client.chat.completions.create({ model, messages, tools: [PYTHON_TOOL], temperature, max_tokens: 256 });
    const msg = r.choices[0].message;
    messages.push(msg);
    const toolCalls = (msg.tool_calls ?? []).filter((c) => c.type === 'function');
    if (!toolCalls.length) return { answer: msg.content ?? '', turns: turn, calls };
    for (const c of toolCalls) {
      calls++;
      let code = '';
      try {
        code = String((JSON.parse(c.function.arguments) as { code?: unknown }).code ?? '');
      } catch {
        code = '';
      }
      const output = c.function.name === 'python' && code ? await runPython(code) : `error: unknown tool ${c.function.name} or no code`;
      messages.push({ role: 'tool', tool_call_id: c.id, content: output });
    }
  }
  return { answer: '', turns: maxTurns, calls };
}

async function main(): Promise<void> {
  const baseURL = arg('base-url', 'http://127.0.0.1:8000/v1'), model = arg('model');
  const samples = Number(arg('samples', '4')), maxTurns = Number(arg('max-turns', '4')), temperature = Number(arg('temperature', '1'));
  const tasks = readFileSync(arg('tasks'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as AgentTask);
  let right = 0, total = 0;
  for (const task of tasks) {
    for (let k = 0; k < samples; k++) {
      const rolloutId = `${task.task_id}-${Date.now().toString(36)}-${k}`;
      // The same agent code; only the headers tell the server which rollout and task a call belongs to.
      const client = new OpenAI({ baseURL, apiKey: process.env.OPENAI_API_KEY ?? 'none', defaultHeaders: { 'x-rollout-id': rolloutId, 'x-task-id': task.task_id } });
      const res = await rollout(client, model, task, maxTurns, temperature);
      const reward = res.answer.includes(task.answer) ? 1 : 0;
      right += reward;
      total++;
      const post = await fetch(`${baseURL}/rollouts/${encodeURIComponent(rolloutId)}/reward`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY ?? 'none'}` }, body: JSON.stringify({ reward }),
      });
      if (!post.ok) throw new Error(`posting the reward of ${rolloutId} failed: ${post.status} ${await post.text()}`);
      console.log(`${rolloutId}: reward ${reward}, ${res.turns} turns, ${res.calls} python calls, answer ${JSON.stringify(res.answer.slice(0, 80))}`);
    }
  }
  console.log(`success ${right}/${total} (${((100 * right) / Math.max(1, total)).toFixed(1)} %)`);
}

main().catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
