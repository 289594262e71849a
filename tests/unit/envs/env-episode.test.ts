// Episodes through the loop-facing glue (createEpisodeState / stepEnvironment / finishEpisode):
// per-turn rewards (tool_errors from malformed and invalid calls) and the final breakdown summed
// into the configurable weighted return, the factory's checks, a math episode calling the real
// python tool, and a user-written environment implementing the interface.
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/agents/chat-template';
import type { MathTask } from '../../../src/data/schemas';
import { createEnvironment, createEpisodeState, finishEpisode, stepEnvironment, type Environment, type TurnToolResult } from '../../../src/envs';
import { episodeReturn, resolveWeights, weigh } from '../../../src/envs/reward';
import { createNodePythonPool } from '../../../src/tools/python/node-pool';
import type { PythonPool } from '../../../src/tools/python/pool';
import { parseToolCalls } from '../../../src/tools/qwen-tools';
import { ToolRegistry } from '../../../src/tools/registry';

const task: MathTask = { task_id: 'm', question: 'What is 123 * 456?', answer: '56088', metadata: {} };
let pool: PythonPool | undefined;
afterAll(async () => {
  await pool?.close();
});

/** What the agent loop does with one assistant turn: parse, call the registry, step the env. */
async function turn(env: Environment<MathTask>, registry: ToolRegistry, state: ReturnType<typeof createEpisodeState>, transcript: ChatMessage[], text: string) {
  transcript.push({ role: 'assistant', content: text });
  const results: TurnToolResult[] = [];
  for (const call of parseToolCalls(text).calls) {
    const result = await registry.call(call.name, call.arguments, { episodeId: state.episodeId });
    results.push({ name: call.name, args: call.arguments, ...result });
    transcript.push({ role: 'tool', content: result.text });
  }
  return stepEnvironment(env, task, state, text, results);
}

describe('reward arithmetic', () => {
  it('weighs parts, ignores unweighted ones, and sums turns and the end into the return', () => {
    const w = resolveWeights('t', { correctness: 1, format: 0.1 }, { format: 0.5, tool_errors: -0.25 });
    const final = weigh({ correctness: 1, format: 1, em: 1 }, w);
    expect(final.total).toBeCloseTo(1.5, 12);
    const turns = [weigh({ tool_errors: 2 }, w), weigh({ tool_errors: 0 }, w)];
    const ep = episodeReturn(turns, final);
    console.log(`return ${ep.return}, parts ${JSON.stringify(ep.parts)}`);
    expect(ep.return).toBeCloseTo(1.5 - 0.5, 12);
    expect(ep.parts).toEqual({ tool_errors: 2, correctness: 1, format: 1, em: 1 });
    expect(() => weigh({ correctness: Number.NaN }, w)).toThrow(/finite/);
  });
});

describe('episodes', () => {
  it('checks what each built-in needs', () => {
    expect(() => createEnvironment('code_exec', {})).toThrow(/needs a Python pool/);
    expect(() => createEnvironment('search_qa', {})).toThrow(/needs a search backend/);
    expect(() => createEnvironment('chess' as 'math', {})).toThrow(/unknown environment "chess"/);
    expect(createEnvironment('math', {}).tools()).toEqual([]);
  });

  it('math with the python tool: per-turn tool_errors plus the final reward', async () => {
    pool = createNodePythonPool({ workers: 1, timeoutMs: 5000 });
    const env = createEnvironment('math', { python: pool }, { pythonTool: true, weights: { tool_use: 0.2 } });
    const registry = new ToolRegistry();
    for (const t of env.tools()) registry.register(t);
    expect(registry.names).toEqual(['python']);
    const state = createEpisodeState('ep-math');
    const transcript = env.initialMessages(task);
    expect(transcript[0].content).toContain('python tool');
    // Turn 1: one malformed call, one call to a tool that does not exist, one good call.
    const t1 = await turn(env, registry, state, transcript,
      'Compute.\n<tool_call>\n{"name": "python", "arguments": {"code": }\n</tool_call>\n<tool_call>\n{"name": "calc", "arguments": {"x": 1}}\n</tool_call>\n<tool_call>\n{"name": "python", "arguments": {"code": "print(123 * 456)"}}\n</tool_call>');
    expect(t1.done).toBe(false);
    expect(t1.reward).toEqual({ tool_errors: 2 });
    expect(transcript[transcript.length - 1].content).toBe('56088');
    // Turn 2: the answer.
    const t2 = await turn(env, registry, state, transcript, 'The product is \\boxed{56,088}.');
    expect(t2.done).toBe(true);
    const ep = await finishEpisode(env, task, state, transcript);
    await registry.endEpisode(state.episodeId);
    console.log(`math episode: turns ${ep.turns.map((t) => t.total).join(', ')}, final ${JSON.stringify(ep.final.parts)}, return ${ep.return}`);
    expect(state.turn).toBe(2);
    expect(state.malformedCalls).toBe(1);
    expect(ep.final.parts).toEqual({ correctness: 1, format: 1, tool_use: 1 });
    // 2 * -0.1 (turn 1) + 0 (turn 2) + 1 + 0.1 + 0.2 (final)
    expect(ep.return).toBeCloseTo(-0.2 + 1.3, 12);
  });

  it('runs a user-written environment through the same glue', async () => {
    // Reward 1 for answering "pong" to "ping", a 0.5 bonus per turn for staying short.
    const pingPong: Environment<MathTask> = {
      name: 'ping_pong',
      weights: { correctness: 1, brevity: 0.5 },
      tools: () => [],
      systemPrompt: () => 'Answer ping with pong.',
      initialMessages: (t) => [{ role: 'system', content: 'Answer ping with pong.' }, { role: 'user', content: t.question }],
      onTurn: (_t, _s, text) => ({ reward: { brevity: text.length <= 10 ? 1 : 0 }, done: true }),
      finalReward: async (_t, _s, transcript) => {
        const last = transcript[transcript.length - 1].content.trim().toLowerCase();
        return weigh({ correctness: last === 'pong' ? 1 : 0 }, { correctness: 1, brevity: 0.5 });
      },
    };
    const t: MathTask = { task_id: 'p', question: 'ping', answer: 'pong', metadata: {} };
    const state = createEpisodeState('ep-pp');
    const transcript = [...pingPong.initialMessages(t), { role: 'assistant' as const, content: 'pong' }];
    expect((await stepEnvironment(pingPong, t, state, 'pong', [])).done).toBe(true);
    const ep = await finishEpisode(pingPong, t, state, transcript);
    expect(ep.return).toBeCloseTo(1.5, 12);
  });
});
