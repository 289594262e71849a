// The default agent's generated data (scripts/make-agent-data.ts): generators are pure functions
// of the seed, the shipped splits load through the agent schema without a skipped line, and the
// held-out split really is held out (places, people, an operand and phrasings never seen in
// training). Also the agent env's grading of hand-written answers, and the drills and
// augmentations of the curriculum (copy, induction, extraction, made-up people, reading, direct
// answers): seeded,
// the trained reply is what each promises (a copy of the line, a span from a random start, the
// numbers in order and the printed value, the asked fact), SFT-loadable, never a held-out entity.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadTasks } from '../../../src/data/loader';
import type { AgentTask } from '../../../src/data/schemas';
import { AgentEnv } from '../../../src/envs/agent/env';
import { CorpusSearch, parseCorpusJsonl } from '../../../src/tools/search/corpus';
import { mulberry32 } from '../../../src/util/rng';
import { HELD_OUT_PEOPLE, calculatorTask, lookupTask } from '../../../scripts/agent-data/tasks';
import { makePlaces, placeDoc } from '../../../scripts/agent-data/world';
import { COPY_SYSTEM, SPAN_SYSTEM, TOOL_SPAN_SYSTEM, copyDrill, extractDrill, inductionDrill } from '../../../scripts/agent-data/copy-drill';
import type { QwenTool } from '../../../src/tools/qwen-tools';
import { directMix, madeUpPerson, readingDrill, traceTool, withMadeUpPerson, type AgentTrace } from '../../../scripts/agent-data/augment';
import { searchTool } from '../../../src/tools/search-tool';
import { readSftJsonl } from '../../../src/train/data';
import { loadTokenizer } from '../../../src/model/tokenizer';
import { NodeDirSource } from '../../../src/model/io/node-source';

function shipped(split: 'train' | 'eval'): AgentTask[] {
  const r = loadTasks('agent', readFileSync(`datasets/agent_${split}.jsonl`, 'utf8'), `agent_${split}.jsonl`);
  expect(r.skipped, JSON.stringify(r.skipped.slice(0, 3))).toEqual([]);
  expect(r.warnings).toEqual([]);
  return r.tasks;
}

const operands = (t: AgentTask) => (String(t.metadata.code).match(/\d+/g) ?? []).map(Number);

describe('agent data', () => {
  it('generators are pure functions of the seed', () => {
    const places = makePlaces(5, 30, 5);
    expect(makePlaces(5, 30, 5)).toEqual(places);
    expect(makePlaces(6, 30, 5)).not.toEqual(places);
    const draw = (seed: number) => {
      const rand = mulberry32(seed);
      return [calculatorTask(rand, 'train', 0), lookupTask(rand, 'train', 0, places), calculatorTask(rand, 'eval', 1)];
    };
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
    expect(new Set(places.map((p) => p.name)).size).toBe(30);
  });

  it('ships 5000 train and 400 held-out tasks, half of each family', () => {
    const train = shipped('train'), heldOut = shipped('eval');
    expect(train.length).toBe(5000);
    expect(heldOut.length).toBe(400);
    expect(heldOut.filter((t) => t.family === 'calculator').length).toBe(200);
    const sft = readFileSync('datasets/agent_sft.jsonl', 'utf8').trim().split('\n');
    expect(sft.length).toBe(train.length);
  });

  it('holds out places, people, an operand per calculator task and phrasings of each family', () => {
    const train = shipped('train'), heldOut = shipped('eval');
    const trainPlaces = new Set(train.filter((t) => t.family === 'lookup').map((t) => t.metadata.place));
    const evalPlaces = new Set(heldOut.filter((t) => t.family === 'lookup').map((t) => t.metadata.place));
    expect([...evalPlaces].filter((p) => trainPlaces.has(p))).toEqual([]);
    const trainOps = train.filter((t) => t.family === 'calculator').flatMap(operands);
    const evalOps = heldOut.filter((t) => t.family === 'calculator').flatMap(operands);
    expect(Math.max(...trainOps)).toBeLessThanOrEqual(60);
    // Every held-out calculator task has exactly one operand never seen in training, at any position.
    const unseenOps = heldOut.filter((t) => t.family === 'calculator').map((t) => operands(t).filter((x) => x > 60).length);
    expect(new Set(unseenOps)).toEqual(new Set([1]));
    expect(new Set(heldOut.filter((t) => t.family === 'calculator').map((t) => operands(t).findIndex((x) => x > 60))).size).toBe(3);
    expect(Math.max(...evalOps)).toBeLessThanOrEqual(99);
    const trainTemplates = new Set(train.map((t) => t.metadata.template));
    const unseen = heldOut.filter((t) => !trainTemplates.has(t.metadata.template));
    const byFamily = (f: string) => unseen.filter((t) => t.family === f).length;
    console.log(`held-out tasks with a phrasing unseen in training: ${byFamily('calculator')} calculator, ${byFamily('lookup')} lookup`);
    // Drawn like any training phrasing: 1 of 7 calculator templates, 2 of 12 lookup templates.
    expect(byFamily('calculator')).toBeGreaterThan(15);
    expect(byFamily('lookup')).toBeGreaterThan(15);
    const people = (ts: AgentTask[]) => new Set(ts.filter((t) => t.family === 'calculator').map((t) => t.question.split(' ')[0]));
    expect([...people(heldOut)].filter((p) => p !== 'A' && people(train).has(p))).toEqual([]);
  });

  it('every lookup answer is in its place\'s corpus document, found by BM25', async () => {
    const docs = parseCorpusJsonl(readFileSync('datasets/agent_corpus.jsonl', 'utf8'));
    const search = new CorpusSearch(docs);
    for (const t of shipped('eval').filter((x) => x.family === 'lookup').slice(0, 40)) {
      const [hit] = await search.search(String(t.metadata.query), 1);
      expect(hit.title).toBe(t.metadata.place);
      expect(hit.snippet).toContain(t.answer);
    }
    expect(placeDoc(makePlaces(1, 1, 0)[0]).text).toMatch(/^\w+ is an? \w+ in the \w+ region\./);
  });

  it('the agent env grades numbers numerically, names by normalised exact match, and the family\'s tool', () => {
    // grade() never runs a tool: this runner refuses to (the real sandbox runs in agent-tokenizer.test.ts).
    const env = new AgentEnv({ python: { run: async () => { throw new Error('grade() must not run Python'); }, endEpisode: async () => {} }, search: new CorpusSearch([]) });
    const calc: AgentTask = { task_id: 'c', family: 'calculator', question: 'q', answer: '74', metadata: {} };
    const look: AgentTask = { task_id: 'l', family: 'lookup', question: 'q', answer: 'Maigas Vanind', metadata: {} };
    expect(env.grade(calc, '<answer> 74.0</answer>', ['python']).parts).toEqual({ correctness: 1, format: 1, tool_use: 1 });
    expect(env.grade(calc, 'The answer is 74', ['search']).parts).toEqual({ correctness: 1, format: 0, tool_use: 0 });
    expect(env.grade(look, '<answer>maigas vanind.</answer>', ['search']).total).toBeCloseTo(1.2, 12);
    expect(env.grade(look, '<answer>Maigas</answer>', ['search']).parts.correctness).toBe(0);
  });

  it('the copy drill: seeded, the assistant repeats the user line (or wraps it in <answer>), loads as SFT data', async () => {
    const lines = (seed: number) => { const rand = mulberry32(seed); return Array.from({ length: 300 }, () => copyDrill(rand)); };
    const a = lines(5);
    expect(lines(5)).toEqual(a);
    expect(lines(6)).not.toEqual(a);
    let wrapped = 0;
    for (const { messages } of a) {
      expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
      expect(messages[0].content).toBe(COPY_SYSTEM);
      const text = messages[1].content, reply = messages[2].content;
      const items = text.split(' ').length;
      expect(items).toBeGreaterThanOrEqual(3);
      expect(items).toBeLessThanOrEqual(14);
      if (reply.startsWith('<answer>')) { wrapped++; expect(reply).toBe(`<answer> ${text}</answer>`); } else expect(reply).toBe(text);
    }
    expect(wrapped / a.length).toBeGreaterThan(0.2);
    expect(wrapped / a.length).toBeLessThan(0.5);
    const tok = await loadTokenizer(new NodeDirSource('public/models/agent-tiny'));
    const ds = readSftJsonl(a.map((l) => JSON.stringify(l)).join('\n'), 'drill.jsonl', { tokenizer: tok, maxLength: 192 });
    expect(ds.examples.length).toBe(a.length);
    // Every trained token is the reply: the decoded trained span is the assistant text and its end.
    const e = ds.examples[0];
    const trained = e.ids.filter((_, i) => e.mask[i] === 1);
    expect(tok.decode(trained)).toContain(a[0].messages[2].content);
  });

  /** A tool call's argument (calls written by the drills carry an arguments object). */
  const argOf = (args: string | Record<string, unknown> | undefined, key: string): string => (typeof args === 'object' ? String(args[key]) : '');
  const agentTools = (JSON.parse(readFileSync('datasets/agent_sft.jsonl', 'utf8').split('\n')[0]) as { tools: QwenTool[] }).tools;

  it('the induction drill: seeded; the reply (or the answer after a tool call) is a span of the source from a random start', async () => {
    const lines = (seed: number) => { const rand = mulberry32(seed); return Array.from({ length: 400 }, () => inductionDrill(rand, agentTools)); };
    const a = lines(7);
    expect(lines(7)).toEqual(a);
    expect(lines(8)).not.toEqual(a);
    const starts = new Set<number>();
    let toolEpisodes = 0;
    const spanOf = (source: string, reply: string) => {
      const inner = reply.startsWith('<answer> ') ? reply.slice(9, -9) : reply;
      const at = ` ${source} `.indexOf(` ${inner} `);
      expect(at, `${inner} in ${source}`).toBeGreaterThanOrEqual(0);
      starts.add(source.slice(0, at).split(' ').filter(Boolean).length);
    };
    for (const { messages, tools } of a) {
      if (messages[0].content === SPAN_SYSTEM) {
        expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
        spanOf(messages[1].content, messages[2].content);
        continue;
      }
      toolEpisodes++;
      expect(messages[0].content).toBe(TOOL_SPAN_SYSTEM);
      expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
      expect(tools).toBe(agentTools);
      const call = messages[2].tool_calls?.[0].function;
      const arg = call?.name === 'python' ? argOf(call.arguments, 'code').replace(/^print\((.*)\)$/s, '$1') : argOf(call?.arguments, 'query');
      spanOf(messages[1].content, arg);
      expect(messages[3].name).toBe(call?.name);
      expect(messages[4].content.startsWith('<answer> ') && messages[4].content.endsWith('</answer>')).toBe(true);
      spanOf(messages[3].content, messages[4].content);
    }
    expect(toolEpisodes / a.length).toBeGreaterThan(0.5);
    expect(toolEpisodes / a.length).toBeLessThan(0.7);
    // Spans start anywhere, not only at the first item (that would be copying by position).
    expect(starts.size).toBeGreaterThan(10);
    const tok = await loadTokenizer(new NodeDirSource('public/models/agent-tiny'));
    const ds = readSftJsonl(a.map((l) => JSON.stringify(l)).join('\n'), 'induction.jsonl', { tokenizer: tok, maxLength: 256 });
    expect(ds.examples.length).toBe(a.length);
  });

  it('the augment stage: a calculator trace gets a made-up person everywhere in its question, nothing else changes, never a held-out person', () => {
    const traces = readFileSync('datasets/agent_sft.jsonl', 'utf8').split('\n').filter(Boolean).slice(0, 200).map((l) => JSON.parse(l) as AgentTrace);
    const calc = traces.filter((t) => traceTool(t) === 'python');
    expect(calc.length).toBeGreaterThan(50);
    expect(traces.filter((t) => traceTool(t) === 'search').length).toBe(traces.length - calc.length);
    const rand = mulberry32(3);
    const heldOutPeople = new Set(shipped('eval').filter((t) => t.family === 'calculator').map((t) => t.question.split(' ')[0]));
    const names = new Set<string>();
    for (const t of calc) {
      const a = withMadeUpPerson(t, rand);
      const [before, after] = [t, a].map((x) => x.messages[1].content);
      const [person, name] = [before, after].map((q) => q.split(' ')[0]);
      names.add(name);
      expect(heldOutPeople.has(name)).toBe(false);
      expect(after.split(name).length).toBe(before.split(person).length);
      expect(after.includes(person)).toBe(false);
      expect(after.replaceAll(name, person)).toBe(before);
      expect(a.messages.filter((_, i) => i !== 1)).toEqual(t.messages.filter((_, i) => i !== 1));
    }
    expect(names.size).toBeGreaterThan(calc.length / 2);
    // Every capital letter starts some made-up person (each letter token gets trained), and no draw is a held-out person.
    const many = Array.from({ length: 20000 }, () => madeUpPerson(rand));
    expect(new Set(many.map((n) => n[0])).size).toBe(26);
    expect(many.filter((n) => HELD_OUT_PEOPLE.includes(n))).toEqual([]);
    expect([...heldOutPeople].filter((p) => p !== 'A').sort()).toEqual([...HELD_OUT_PEOPLE].sort());
  });

  it('the direct stage: about half the traces answer at once (no tool, the right answer), the rest unchanged byte for byte', async () => {
    const lines = readFileSync('datasets/agent_sft.jsonl', 'utf8').split('\n').filter(Boolean);
    const mix = directMix(lines, mulberry32(23), 0.5);
    expect(directMix(lines, mulberry32(23), 0.5)).toEqual(mix);
    expect(mix.length).toBe(lines.length);
    const train = shipped('train');
    let direct = 0;
    const families = { calculator: 0, lookup: 0 };
    for (const [i, line] of mix.entries()) {
      if (line === lines[i]) continue;
      direct++;
      const [t, d] = [lines[i], line].map((l) => JSON.parse(l) as AgentTrace);
      expect(d.tools).toEqual(t.tools);
      expect(d.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
      expect(d.messages[2].tool_calls).toBeUndefined();
      expect(d.messages.slice(0, 2)).toEqual(t.messages.slice(0, 2));
      // Traces follow the train split's order: the direct answer is the task's right answer.
      expect(d.messages[2].content).toBe(`<answer> ${train[i].answer}</answer>`);
      expect(d.messages[1].content).toBe(train[i].question);
      families[train[i].family]++;
    }
    expect(direct / mix.length).toBeGreaterThan(0.47);
    expect(direct / mix.length).toBeLessThan(0.53);
    expect(Math.min(families.calculator, families.lookup)).toBeGreaterThan(direct * 0.45);
    const tok = await loadTokenizer(new NodeDirSource('public/models/agent-tiny'));
    const ds = readSftJsonl(mix.slice(0, 200).join('\n'), 'direct_mix.jsonl', { tokenizer: tok, maxLength: 256 });
    expect(ds.examples.length).toBe(200);
  });

  it('the reading drill: a lookup on a place made up for the line, the tool response the real search tool gives for its document, the answer in it', async () => {
    const heldOut = shipped('eval');
    const avoid = new Set(heldOut.flatMap((t) => [t.answer, String(t.metadata.place ?? '')]));
    const rand = mulberry32(4);
    const a = Array.from({ length: 300 }, () => readingDrill(rand, agentTools, avoid));
    expect(readingDrill(mulberry32(4), agentTools, avoid)).toEqual(a[0]);
    const trainPlaces = new Set(shipped('train').map((t) => String(t.metadata.place ?? '')));
    const values = new Set<string>();
    for (const { messages } of a) {
      const query = argOf(messages[2].tool_calls?.[0].function.arguments, 'query');
      const answer = messages[4].content.replace(/^<answer> /, '').replace(/<\/answer>$/, '');
      const place = /\[([^\]]+)\]/.exec(messages[3].content)?.[1] ?? '';
      expect(avoid.has(place)).toBe(false);
      if (/^[A-Z]/.test(answer)) expect(avoid.has(answer)).toBe(false);
      expect(trainPlaces.has(place)).toBe(false);
      values.add(answer);
      // The response is byte for byte what the agent env's search tool returns over a document of its sentences (the ordering is the tool's).
      const search = searchTool(new CorpusSearch([{ id: place.toLowerCase(), title: place, text: messages[3].content.slice(place.length + 3) }]), { k: 1, relevantSentencesFirst: true });
      const real = await search.call({ query }, { episodeId: 'x' } as Parameters<typeof search.call>[1]);
      expect(real.text).toBe(messages[3].content);
      expect(messages[3].content.split('. ')[0]).toContain(answer);
    }
    expect(values.size).toBeGreaterThan(200);
    const ds = readSftJsonl(a.map((x) => JSON.stringify(x)).join('\n'), 'reading.jsonl', { tokenizer: await loadTokenizer(new NodeDirSource('public/models/agent-tiny')), maxLength: 256 });
    expect(ds.examples.length).toBe(a.length);
    expect(ds.truncated).toBe(0);
  });

  it('the extraction drill: python on the numbers in order of appearance with the listed operators; the answer is the printed value', () => {
    const rand = mulberry32(9);
    const a = Array.from({ length: 300 }, () => extractDrill(rand, agentTools));
    for (const { messages } of a) {
      const user = messages[1].content.split(' ');
      const nums = user.filter((x) => /^[0-9]+$/.test(x));
      const ops = user.slice(-(nums.length - 1));
      expect(nums.length === 2 || nums.length === 3).toBe(true);
      expect(ops.every((o) => ['+', '-', '*'].includes(o))).toBe(true);
      const code = argOf(messages[2].tool_calls?.[0].function.arguments, 'code');
      expect(code).toBe(`print(${nums.map((n, i) => (i ? ` ${ops[i - 1]} ` : '') + n).join('')})`);
      // Python and JavaScript agree on + - * of small integers, precedence included.
      const value = String(new Function(`return ${code.slice(6, -1)};`)() as number);
      expect(messages[3].content).toBe(value);
      expect(messages[4].content).toBe(`<answer> ${value}</answer>`);
    }
  });
});
