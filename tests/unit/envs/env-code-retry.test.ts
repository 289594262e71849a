// code_exec retries through the real agent loop: env.max_attempts 2 and env.attempt_penalty 0.2
// from an RlConfig (built by the RL env factory), the real Pyodide sandbox grading MBPP task
// mbpp/12, the Qwen2.5 tokenizer and chat template. The policy is the scripted stepper (the only
// double). Episode 0 answers wrong, reads the failing test output (a user turn, loss mask 0) and
// passes on its second attempt; episode 1 passes at once. Run: npx vitest run tests/unit/env-code-retry.test.ts
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolSpecs } from '../../../src/agents/gpu-rollout';
import { runEpisodes } from '../../../src/agents/loop';
import { TurnRenderer } from '../../../src/agents/turn-render';
import { loadTasks } from '../../../src/data/loader';
import type { CodeTask, Task } from '../../../src/data/schemas';
import { envRollout } from '../../../src/envs/rollout';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { loadTokenizer } from '../../../src/model/tokenizer';
import { resolveConfig } from '../../../src/rl/config-validate';
import { buildEnvironment } from '../../../src/rl/env-factory';
import { createNodePythonPool } from '../../../src/tools/python/node-pool';
import type { PythonPool } from '../../../src/tools/python/pool';
import { ScriptedStepper } from '../../fixtures/scripted-stepper';
import { sharedPath } from '../../fixtures/shared';

const DIR = sharedPath('models/qwen2.5-tokenizer');
const END = '<|im_end|>';
let pool: PythonPool;

beforeAll(async () => {
  pool = createNodePythonPool({ workers: 1, timeoutMs: 5000 });
  await pool.ready();
});
afterAll(async () => {
  await pool?.close();
});

describe.skipIf(!existsSync(DIR))('code_exec retry with test feedback in the agent loop', () => {
  it('a wrong answer gets the failing tests back (mask 0) and the second attempt passes, penalised', async () => {
    const tok = await loadTokenizer(new NodeDirSource(DIR));
    const template = readFileSync(`${DIR}/chat_template.jinja`, 'utf8');
    const task = loadTasks('code_exec', readFileSync('datasets/mbpp_eval.jsonl', 'utf8'), 'mbpp_eval.jsonl').tasks.find((t) => t.task_id === 'mbpp/12') as CodeTask;
    const cfg = resolveConfig({
      model: { path: 'unused' }, data: { env: 'code_exec' },
      env: { max_attempts: 2, attempt_penalty: 0.2 }, rollout: { max_turns: 2 },
    }, 'env-code-retry.test');
    const env = buildEnvironment(cfg, { python: pool });
    const r = envRollout(env, [task as Task], 2);
    const renderer = new TurnRenderer(tok, { tools: toolSpecs(r.registry), template });
    const wrong = `\`\`\`python\ndef sort_matrix(M):\n    return M\n\`\`\`${END}`;
    const right = `\`\`\`python\n${task.reference_solution}\n\`\`\`${END}`;
    const enc = (s: string) => tok.encode(s, { addSpecialTokens: false });
    const scripts = [[...enc(wrong), ...enc(right)], enc(right)];
    const sampled = scripts.map((s) => s.length);
    const batch = await runEpisodes({ stepper: new ScriptedStepper(2, scripts), renderer, registry: r.registry, prompts: r.prompts, config: { temperature: 0, samplesPerPrompt: 2, maxTurns: 2, maxTokens: 2048 }, hooks: r.hooks });
    const rewards = await r.rewards(batch.episodes);
    const [retry, once] = batch.episodes;
    console.log(`retry episode: ${retry.finishReason}, ${retry.turns} turns, parts ${JSON.stringify(rewards[0].final.parts)}, return ${rewards[0].return.toFixed(3)}; `
      + `first-try episode: ${once.turns} turn, return ${rewards[1].return.toFixed(3)}`);

    expect(retry.finishReason).toBe('answer');
    expect(retry.turns).toBe(2);
    expect(retry.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    const feedback = retry.messages[3].content;
    expect(feedback).toContain('Your solution passed 0 of 3 tests.');
    expect(feedback).toContain(task.tests[0]);
    // Only the two answers are trained: the feedback turn is context (mask 0) between them.
    expect(retry.mask.reduce<number>((a, m) => a + m, 0)).toBe(sampled[0]);
    const firstEnd = retry.mask.lastIndexOf(1, retry.mask.indexOf(0, retry.mask.indexOf(1)));
    const secondStart = retry.mask.indexOf(1, firstEnd + 1);
    expect(tok.decode(retry.tokens.slice(firstEnd + 1, secondStart))).toContain('Your solution passed 0 of 3 tests.');
    expect(rewards[0].final.parts).toMatchObject({ correctness: 1, format: 1, retries: 1 });
    expect(rewards[0].return).toBeCloseTo(1 + 0.1 - 0.2, 12);

    expect(once.turns).toBe(1);
    expect(once.mask.reduce<number>((a, m) => a + m, 0)).toBe(sampled[1]);
    expect(rewards[1].final.parts).toMatchObject({ correctness: 1, retries: 0 });
    expect(rewards[1].return).toBeCloseTo(1.1, 12);
  }, 120_000);
});
