// Hand-built multi-turn episodes with the Qwen2.5 tokenizer and chat template, no GPU: the policy
// is a scripted stepper (the ONLY test double: it returns scripted assistant tokens where the
// GPU would sample) while the loop, the template rendering, the registry and the tools are real.
// Checks: the token sequence equals tokenizer.encode(renderChat(template, conversation)) (the
// rendered_example.txt conversation among them), masks are 1 exactly on the scripted tokens,
// log-probs line up, tool responses are truncated to a token budget, limits, hooks, sync mode.
import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PLAIN_TEMPLATE, renderChat, templateChoice, type ChatMessage } from '../../../src/agents/chat-template';
import { resolveAgentConfig, type AgentLoopConfig } from '../../../src/agents/agent-config';
import { toolSpecs } from '../../../src/agents/gpu-rollout';
import { runEpisodes, type AgentHooks, type EpisodeSpec, type PolicyStepper, type StepInfo } from '../../../src/agents/loop';
import { truncateToTokens } from '../../../src/agents/truncate';
import { TurnRenderer } from '../../../src/agents/turn-render';
import type { StepSample } from '../../../src/model/gpu/session';
import { NodeDirSource } from '../../../src/model/io/node-source';
import { loadTokenizer, type Tokenizer } from '../../../src/model/tokenizer';
import { ToolRegistry } from '../../../src/tools/registry';
import { sharedPath } from '../../fixtures/shared';

const DIR = sharedPath('models/qwen2.5-tokenizer');
const IM_END = '<|im_end|>';

/** Plays scripted assistant turns: per slot, a queue of token ids it "samples" one per step. */
class ScriptedStepper implements PolicyStepper {
  /** Everything each slot was fed: the live sequence as the model saw it. */
  readonly fed: number[][];
  readonly scripts: number[][];
  constructor(readonly B: number, scripts: number[][]) {
    this.fed = Array.from({ length: B }, () => []);
    this.scripts = scripts.map((s) => s.slice());
  }
  async step(newTokens: number[][]): Promise<StepSample> {
    const ids = new Int32Array(this.B).fill(-1), logprobs = new Float32Array(this.B).fill(NaN);
    await new Promise((r) => setTimeout(r, 1)); // a step takes time, as on the GPU
    newTokens.forEach((toks, s) => {
      if (!toks.length) return;
      this.fed[s].push(...toks);
      const id = this.scripts[s].shift();
      if (id === undefined) throw new Error(`slot ${s} ran out of script`);
      ids[s] = id;
      logprobs[s] = scriptedLogprob(this.fed[s].length);
    });
    return { ids, logprobs };
  }
  reset(slot: number): void {
    this.fed[slot] = [];
  }
}
/** The log-prob the script reports for the token after `n` fed tokens (a checkable pattern). */
const scriptedLogprob = (n: number) => Math.fround(-(n % 97) / 100);

let tok: Tokenizer;
let template: string;

function registry(extra?: (r: ToolRegistry) => void): ToolRegistry {
  const r = new ToolRegistry()
    .register({
      name: 'search', description: 'Search the offline corpus',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      call: async (args) => ({ text: args.query === 'AFC Super Bowl 50' ? '[Super Bowl 50] The American Football Conference (AFC) champion Denver Broncos defeated ...' : `no hits for ${String(args.query)}`, ok: true }),
    })
    .register({
      name: 'python', description: 'Run Python code and return stdout',
      parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
      call: async () => ({ text: 'python is not wired in this test', ok: false, error: 'stub' }),
    })
    .register({
      name: 'add', description: 'Add two numbers',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      call: async (args) => ({ text: String(Number(args.a) + Number(args.b)), ok: true }),
    });
  extra?.(r);
  return r;
}

/** Runs one batch; `turns[i]` are episode i's assistant turns as text (each ends with <|im_end|>). */
async function run(reg: ToolRegistry, prompts: EpisodeSpec[], turns: string[][], config: Partial<AgentLoopConfig> = {}, hooks?: AgentHooks, template_?: string | null) {
  const renderer = new TurnRenderer(tok, { tools: toolSpecs(reg), template: template_ === undefined ? template : template_ });
  const G = config.samplesPerPrompt ?? 1;
  const sync = config.mode === 'sync';
  const scripts = turns.map((ts) => ts.flatMap((t) => tok.encode(t, { addSpecialTokens: false })));
  // Sync mode reuses slot 0 for every episode: its script is the episodes' scripts in order.
  const stepper = new ScriptedStepper(sync ? 1 : prompts.length * G, sync ? [scripts.flat()] : scripts);
  const batch = await runEpisodes({ stepper, renderer, registry: reg, prompts, config: { temperature: 0, ...config }, hooks });
  return { batch, stepper, renderer };
}

/** Expected mask: 1 on each assistant turn's scripted tokens, located by rendering the conversation up to that turn. */
function expectedMask(conv: ChatMessage[], turns: string[], total: number, reg = registry()): (0 | 1)[] {
  const mask = new Array<0 | 1>(total).fill(0);
  const tools = toolSpecs(reg);
  let k = 0;
  conv.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const start = tok.encode(renderChat(template, conv.slice(0, i), { tools, addGenerationPrompt: true })).length;
    const n = tok.encode(turns[k++], { addSpecialTokens: false }).length;
    for (let j = start; j < start + n; j++) mask[j] = 1;
  });
  return mask;
}

/** The conversation rendered by the template, as token ids; the newline after the last <|im_end|> is nobody's to generate. */
function rendered(conv: ChatMessage[], reg = registry()): number[] {
  return tok.encode(renderChat(template, conv, { tools: toolSpecs(reg) }).replace(/\n$/, ''));
}

function firstDiff(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

describe.skipIf(!existsSync(DIR))('agent loop bookkeeping (Qwen2.5 template, scripted policy)', () => {
  beforeAll(async () => {
    tok = await loadTokenizer(new NodeDirSource(DIR));
    template = readFileSync(`${DIR}/chat_template.jinja`, 'utf8');
  });

  it('reproduces rendered_example.txt token for token: masks on the model turns only', async () => {
    const reg = registry();
    const [withTools] = readFileSync(`${DIR}/rendered_example.txt`, 'utf8').split(/\n?-----8<-----[^\n]*\n/);
    const turns = [
      `<tool_call>\n{"name": "search", "arguments": {"query": "AFC Super Bowl 50"}}\n</tool_call>${IM_END}`,
      `The Denver Broncos.${IM_END}`,
    ];
    // The example lists search and python only.
    const reg2 = new ToolRegistry().register(reg.get('search')!).register(reg.get('python')!);
    const { batch, stepper } = await run(reg2, [{ messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Which NFL team represented the AFC at Super Bowl 50?' },
    ] }], [turns]);
    const ep = batch.episodes[0];
    const expected = tok.encode(withTools.replace(/\n$/, ''));
    console.log(`rendered_example: ${ep.tokens.length} tokens (expected ${expected.length}), first diff at ${firstDiff(ep.tokens, expected)}, finish=${ep.finishReason}, turns=${ep.turns}`);
    expect(ep.tokens).toEqual(expected);
    expect(ep.finishReason).toBe('answer');
    expect(ep.turns).toBe(2);
    expect(ep.finalText).toBe('The Denver Broncos.');
    expect(ep.toolCalls).toMatchObject([{ turn: 1, name: 'search', args: { query: 'AFC Super Bowl 50' }, ok: true, truncated: false }]);
    // Masks: 1 exactly on the scripted tokens; log-probs there are the script's, NaN elsewhere.
    const conv: ChatMessage[] = ep.messages;
    expect(ep.mask).toEqual(expectedMask(conv, turns, expected.length, reg2));
    const ones = ep.mask.reduce<number>((a, m) => a + m, 0);
    expect(ones).toBe(turns.reduce((a, t) => a + tok.encode(t, { addSpecialTokens: false }).length, 0));
    ep.mask.forEach((m, i) => {
      if (m) expect(ep.logprobs[i]).toBe(scriptedLogprob(i)); // token i was sampled after i fed tokens
      else expect(ep.logprobs[i]).toBeNaN();
    });
    // The model was fed the live sequence, never a re-tokenized history: all tokens but the last.
    expect(stepper.fed[0]).toEqual(ep.tokens.slice(0, -1));
    expect(ep.promptLength).toBe(tok.encode(renderChat(template, conv.slice(0, 2), { tools: toolSpecs(reg2), addGenerationPrompt: true })).length);
  });

  it('two calls in one turn share one user turn of tool responses; the logged messages render to the same tokens', async () => {
    const turns = [
      `I will add both.\n<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>\n<tool_call>\n{"name": "add", "arguments": {"a": 10, "b": 20}}\n</tool_call>${IM_END}`,
      `2+3 = 5 and 10+20 = 30.${IM_END}`,
    ];
    const { batch } = await run(registry(), [{ messages: [{ role: 'system', content: 'You add numbers.' }, { role: 'user', content: 'What are 2+3 and 10+20?' }] }], [turns]);
    const ep = batch.episodes[0];
    const conv: ChatMessage[] = [
      { role: 'system', content: 'You add numbers.' },
      { role: 'user', content: 'What are 2+3 and 10+20?' },
      { role: 'assistant', content: 'I will add both.', tool_calls: [{ type: 'function', function: { name: 'add', arguments: { a: 2, b: 3 } } }, { type: 'function', function: { name: 'add', arguments: { a: 10, b: 20 } } }] },
      { role: 'tool', name: 'add', content: '5' },
      { role: 'tool', name: 'add', content: '30' },
      { role: 'assistant', content: '2+3 = 5 and 10+20 = 30.' },
    ];
    const expected = rendered(conv);
    console.log(`two calls: ${ep.tokens.length} tokens, first diff ${firstDiff(ep.tokens, expected)}; stats ${JSON.stringify(batch.stats)}`);
    expect(ep.tokens).toEqual(expected);
    expect(ep.messages).toEqual(conv);
    expect(rendered(ep.messages)).toEqual(ep.tokens);
    expect(ep.mask).toEqual(expectedMask(conv, turns, expected.length));
    expect(tok.decode(ep.tokens)).toContain('<|im_start|>user\n<tool_response>\n5\n</tool_response>\n<tool_response>\n30\n</tool_response><|im_end|>\n<|im_start|>assistant\n');
    expect(batch.stats['tools/call_frequency']).toBe(2);
    expect(batch.stats['tools/failure_frequency']).toBe(0);
    expect(batch.stats['num_turns/mean']).toBe(2);
  });

  it('malformed calls, unknown tools and schema failures become error responses the model reads, and count as failures', async () => {
    const bad = [
      '<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}\n</tool_call>',
      '<tool_call>\n{"name": "divide", "arguments": {"a": 1, "b": 2}}\n</tool_call>',
      '<tool_call>\n{"name": "add", "arguments": {"a": "one", "b": 2}}\n</tool_call>',
      '<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>',
    ].join('\n');
    const turns = [`${bad}${IM_END}`, `<tool_call>\n{"name": "add", "arguments": {"a": 4}}${IM_END}`, `3${IM_END}`];
    const { batch } = await run(registry(), [{ messages: [{ role: 'user', content: 'Add 1 and 2.' }] }], [turns]);
    const ep = batch.episodes[0];
    const tools = ep.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    for (const t of tools) console.log(`tool response: ${t.slice(0, 90)}`);
    expect(tools.length).toBe(5);
    expect(tools[0]).toMatch(/^Error: tool call is not valid JSON/);
    expect(tools[1]).toContain('unknown tool "divide"');
    expect(tools[2]).toContain('arguments.a must be a number');
    expect(tools[3]).toBe('3');
    expect(tools[4]).toContain('missing </tool_call>');
    expect(ep.toolCalls.map((c) => [c.turn, c.name, c.ok])).toEqual([[1, 'add', false], [1, 'divide', false], [1, 'add', false], [1, 'add', true], [2, 'add', false]]);
    expect(batch.stats['tools/failure_frequency']).toBeCloseTo(4 / 5);
    expect(ep.finishReason).toBe('answer');
    expect(ep.turns).toBe(3);
    // Still exactly the template's rendering of the conversation as logged.
    expect(ep.tokens).toEqual(rendered(ep.messages));
    expect(ep.mask).toEqual(expectedMask(ep.messages, turns, ep.tokens.length));
  });

  it('truncates a long tool response to the token budget (left / middle / right) with a marker', async () => {
    const long = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    for (const side of ['left', 'middle', 'right'] as const) {
      const t = truncateToTokens(tok, long, 24, side);
      const kept = tok.encode(t.text.replace(/\n?\.\.\.\[\d+ tokens cut\]\.\.\.\n?/, ''), { addSpecialTokens: false }).length;
      console.log(`${side}: ${t.tokens} tokens -> ${kept} kept + marker: ${JSON.stringify(t.text.slice(0, 40))}...${JSON.stringify(t.text.slice(-30))}`);
      expect(t.truncated).toBe(true);
      expect(kept).toBeLessThanOrEqual(24);
      expect(t.text).toMatch(new RegExp(`\\.\\.\\.\\[${t.tokens - 24} tokens cut\\]\\.\\.\\.`));
      if (side !== 'right') expect(t.text.startsWith('line 0\nline 1')).toBe(true);
      if (side !== 'left') expect(t.text.endsWith('line 199')).toBe(true);
    }
    expect(truncateToTokens(tok, 'short', 24, 'middle')).toEqual({ text: 'short', truncated: false, tokens: 1 });
    const reg = registry((r) => r.register({ name: 'dump', description: 'Long output', parameters: { type: 'object' }, call: async () => ({ text: long, ok: true }) }));
    const turns = [`<tool_call>\n{"name": "dump", "arguments": {}}\n</tool_call>${IM_END}`, `done${IM_END}`];
    const { batch } = await run(reg, [{ messages: [{ role: 'user', content: 'dump' }] }], [turns], { toolResponseMaxTokens: 16, toolResponseTruncateSide: 'middle' });
    const ep = batch.episodes[0];
    const resp = ep.messages.find((m) => m.role === 'tool')!.content;
    expect(ep.toolCalls[0].truncated).toBe(true);
    expect(resp).toBe(truncateToTokens(tok, long, 16, 'middle').text);
    expect(tok.decode(ep.tokens)).toContain(`<tool_response>\n${resp}\n</tool_response>`);
  });

  it('async mode keeps stepping the other episodes while one waits on a slow tool; idle time is measured', async () => {
    // Episode 0's long call returns only after the other two episodes ended (then 250 ms more), so
    // it waits alone for a while however slow the machine is: the idle time is not a race.
    let othersEnded = (): void => {};
    const others = new Promise<void>((res) => { othersEnded = res; });
    let waitForOthers = true;
    const reg = registry((r) => r.register({
      name: 'slow', description: 'Waits', parameters: { type: 'object', properties: { ms: { type: 'number' } } },
      call: async (args) => {
        if (waitForOthers && Number(args.ms) >= 100) await others;
        await new Promise((res) => setTimeout(res, Number(args.ms)));
        return { text: `waited ${String(args.ms)}`, ok: true };
      },
    }));
    const call = (ms: number) => `<tool_call>\n{"name": "slow", "arguments": {"ms": ${ms}}}\n</tool_call>${IM_END}`;
    const longAnswer = `${'word '.repeat(40)}${IM_END}`;
    const prompts: EpisodeSpec[] = [0, 1, 2].map((i) => ({ messages: [{ role: 'user', content: `task ${i}` }] }));
    const turns = [[call(250), `ok${IM_END}`], [call(20), longAnswer], [longAnswer]];
    const steps: StepInfo[] = [];
    let ended = 0;
    const { batch } = await run(reg, prompts, turns, {}, { onStep: (s) => steps.push(s), onEpisodeEnd: () => { if (++ended === 2) othersEnded(); } });
    waitForOthers = false;
    const overlap = steps.filter((s) => s.waiting.includes(0) && s.stepping.length > 0);
    console.log(`async: ${steps.length} steps, ${overlap.length} stepped others while episode 0 waited; idle fraction ${batch.stats['perf/gpu_idle_fraction'].toFixed(3)} (${batch.stats['perf/gpu_idle_s'].toFixed(3)} s of ${batch.stats['perf/rollout_s'].toFixed(3)} s)`);
    expect(overlap.length).toBeGreaterThan(10);
    expect(steps.some((s) => s.stepping.includes(1) && s.waiting.includes(0))).toBe(true);
    expect(batch.episodes.map((e) => e.finishReason)).toEqual(['answer', 'answer', 'answer']);
    expect(batch.stats['perf/gpu_idle_fraction']).toBeGreaterThan(0);
    expect(batch.stats['perf/gpu_idle_fraction']).toBeLessThan(1);
    expect(batch.stats['perf/gpu_idle_s']).toBeGreaterThan(0.2); // episode 0 waits alone for its last 250 ms
    for (const e of batch.episodes) expect(e.tokens).toEqual(rendered(e.messages, reg));

    // Sync mode: the same episodes one at a time give the same sequences; never two in a step.
    const syncSteps: StepInfo[] = [];
    const sync = await run(reg, prompts, turns, { mode: 'sync' }, { onStep: (s) => syncSteps.push(s) });
    console.log(`sync: ${syncSteps.length} steps, idle fraction ${sync.batch.stats['perf/gpu_idle_fraction'].toFixed(3)}`);
    expect(syncSteps.every((s) => s.stepping.length === 1 && s.waiting.length <= 1)).toBe(true);
    expect(sync.batch.episodes.map((e) => e.tokens)).toEqual(batch.episodes.map((e) => e.tokens));
    expect(syncSteps.length).toBeGreaterThan(steps.length);
  });

  it('limits: max turns, max tokens per turn and per episode, tool timeout; hooks can end an episode', async () => {
    const reg = registry((r) => r.register({ name: 'hang', description: 'Never returns', parameters: { type: 'object' }, call: () => new Promise(() => undefined) }));
    const call = `<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 1}}\n</tool_call>${IM_END}`;
    const user = (c: string): EpisodeSpec => ({ messages: [{ role: 'user', content: c }] });
    // maxTurns = 2: the second turn still calls a tool.
    const a = await run(reg, [user('loop')], [[call, call]], { maxTurns: 2 });
    expect(a.batch.episodes[0]).toMatchObject({ finishReason: 'max_turns', turns: 2, truncated: false });
    expect(a.batch.episodes[0].toolCalls.length).toBe(1); // the last turn's call is not run
    // maxTokensPerTurn: a turn that never stops truncates the episode.
    const b = await run(reg, [user('ramble')], [[`${'blah '.repeat(30)}`]], { maxTokensPerTurn: 10 });
    expect(b.batch.episodes[0]).toMatchObject({ finishReason: 'max_tokens', truncated: true, turns: 1 });
    expect(b.batch.episodes[0].mask.reduce<number>((s, m) => s + m, 0)).toBe(10);
    // maxTokens over the whole episode, reached while a tool response would be appended.
    const promptLen = new TurnRenderer(tok, { template, tools: toolSpecs(reg) }).prompt(user('x').messages).ids.length;
    const c = await run(reg, [user('x')], [[call]], { maxTokens: promptLen + 30 });
    expect(c.batch.episodes[0]).toMatchObject({ finishReason: 'max_tokens', truncated: true });
    expect(c.batch.episodes[0].tokens.length).toBeLessThanOrEqual(promptLen + 30);
    expect(c.batch.stats['completions/clipped_ratio']).toBe(1);
    // A hanging tool times out into an error response; the episode goes on.
    const d = await run(reg, [user('hang')], [[`<tool_call>\n{"name": "hang", "arguments": {}}\n</tool_call>${IM_END}`, `gave up${IM_END}`]], { toolTimeoutMs: 100 });
    expect(d.batch.episodes[0].finishReason).toBe('answer');
    expect(d.batch.episodes[0].toolCalls[0]).toMatchObject({ name: 'hang', ok: false, error: 'hang timed out after 100 ms' });
    // onTurn sees the texts and tool results and can end the episode.
    const seen: string[] = [];
    const e = await run(reg, [user('hook')], [[call, call]], {}, {
      onTurn: (i, text, results) => {
        seen.push(`${i}:${results.map((r) => `${r.name}=${r.text}`).join(',')}:${text.slice(0, 11)}`);
        return { done: true };
      },
    });
    expect(seen).toEqual(['0:add=2:<tool_call>']);
    expect(e.batch.episodes[0]).toMatchObject({ finishReason: 'answer', turns: 1 });
    // G samples per prompt: episodes are prompt-major with their own ids.
    const g = await run(reg, [user('p0'), user('p1')], [[`a${IM_END}`], [`b${IM_END}`], [`c${IM_END}`], [`d${IM_END}`]], { samplesPerPrompt: 2 });
    expect(g.batch.episodes.map((x) => [x.promptIndex, x.sampleIndex, x.id, x.finalText])).toEqual([[0, 0, 'ep-0', 'a'], [0, 1, 'ep-1', 'b'], [1, 0, 'ep-2', 'c'], [1, 1, 'ep-3', 'd']]);
    expect(() => resolveAgentConfig({ maxTurns: 0 })).toThrow('maxTurns');
    // Aborting the rollout ends live and queued episodes at once, even while a tool hangs.
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const hang = `<tool_call>\n{"name": "hang", "arguments": {}}\n</tool_call>${IM_END}`;
    const renderer = new TurnRenderer(tok, { template, tools: toolSpecs(reg) });
    const t0 = performance.now();
    const ab = await runEpisodes({ stepper: new ScriptedStepper(1, [tok.encode(hang, { addSpecialTokens: false })]), renderer, registry: reg, prompts: [user('a'), user('b')], config: { mode: 'sync', toolTimeoutMs: 60_000 }, signal: ac.signal });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(ab.episodes.map((x) => [x.finishReason, x.error])).toEqual([['error', 'the rollout was aborted'], ['error', 'the rollout was aborted before this episode started']]);
  });

  it('teacher-forced prefill: mask 0 on the forced tokens, the turn ends at its <|im_end|>', async () => {
    const forced = `<tool_call>\n{"name": "add", "arguments": {"a": 20, "b": 22}}\n</tool_call>${IM_END}`;
    const { batch } = await run(registry(), [{ messages: [{ role: 'user', content: 'sum' }], prefill: forced }], [[`42${IM_END}`]]);
    const ep = batch.episodes[0];
    expect(ep.toolCalls[0]).toMatchObject({ name: 'add', ok: true });
    expect(ep.tokens).toEqual(rendered(ep.messages));
    expect(ep.mask.reduce<number>((s, m) => s + m, 0)).toBe(tok.encode(`42${IM_END}`, { addSpecialTokens: false }).length);
  });

  it('plain fallback (no template): tools in the system text, tool responses as text lines', async () => {
    const turns = [`<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>${IM_END}`, `3${IM_END}`];
    const { batch } = await run(registry(), [{ messages: [{ role: 'user', content: 'add' }] }], [turns], {}, undefined, null);
    const text = tok.decode(batch.episodes[0].tokens);
    console.log(`plain: ${JSON.stringify(text.slice(-120))}`);
    expect(text.startsWith('system: # Tools')).toBe(true);
    expect(text).toContain('\nuser: add\nassistant:<tool_call>');
    expect(text.endsWith(`</tool_call>${IM_END}\ntool: 3\nassistant:3${IM_END}`)).toBe(true);
  });

  it('plain template asked for (model.template: plain) on a model that has one: the tools are listed too', () => {
    const reg = registry();
    const forced = new TurnRenderer(tok, { template: PLAIN_TEMPLATE, tools: toolSpecs(reg) });
    const text = tok.decode(forced.prompt([{ role: 'user', content: 'add' }]).ids);
    expect(forced.plain).toBe(true);
    expect(text.startsWith('system: # Tools')).toBe(true);
    expect(text).toContain('"name": "add"');
    // model.template: plain_no_tools: the same template without the tools block.
    const bare = new TurnRenderer(tok, { ...templateChoice('plain_no_tools'), tools: toolSpecs(reg) });
    expect(tok.decode(bare.prompt([{ role: 'user', content: 'add' }]).ids)).toBe('user: add\nassistant:');
  });
});
