// onnxruntime-web as the second DecoderEngine in Node (wasm EP): the shipped agent-tiny is
// exported to ONNX by the CLI into a temp folder, then generation (greedy and seeded sampling)
// and held-out evaluation of the agent env (real Python pool and corpus search, greedy) run on
// our WebGPU engine and on ORT through the same code paths; tokens, completions and per-task
// results must be identical and log-probs within 1e-4. Also runs `eval --engine ort --onnx DIR`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { AGENT_DIR } from '../../fixtures/interop-models';
import { parseArgs } from '../../../src/util/args';
import { command as exportCommand } from '../../../src/cli/commands/export';
import { renderChat, templateChoice } from '../../../src/agents/chat-template';
import type { AgentTask, Task } from '../../../src/data/schemas';
import type { GpuRuntime } from '../../../src/gpu/runtime';
import { gpuEngine } from '../../../src/model/gpu/engine';
import { GpuModel } from '../../../src/model/gpu/model';
import { generateOn } from '../../../src/model/generate';
import { loadModelFiles, type LoadedModel } from '../../../src/model/io/loader';
import { NodeDirSource, openNodeModelSource } from '../../../src/model/io/node-source';
import { configureOrt } from '../../../src/ort/env';
import { openOnnxFolder, type OnnxFolder } from '../../../src/ort/folder';
import { parseConfig, type RlConfig } from '../../../src/rl/config-validate';
import { buildEnvironment } from '../../../src/rl/env-factory';
import { evaluate } from '../../../src/rl/eval';
import { composeHooks } from '../../../src/rl/hooks';
import { loadTasksFor, startServices, type RunServices } from '../../../src/run/rl-node-run';
import type { DecoderEngine } from '../../../src/model/engine';
import { cliCommand } from '../../fixtures/cli-command';

configureOrt({ numThreads: 1 });
const CONFIG = 'configs/agent_grpo.yaml';
const TASKS = 6;

let work: string;
let rt: GpuRuntime;
let loaded: LoadedModel;
let model: GpuModel;
let ort: OnnxFolder;
let cfg: RlConfig;
let svc: RunServices;
let tasks: Task[];

/** Max |a - b| over the entries where either is a number (NaN marks prompt and tool tokens; NaN vs a number is Infinity). */
const maxAbs = (a: number[], b: number[]) => a.reduce((m, v, i) => (Number.isNaN(v) && Number.isNaN(b[i]) ? m : Math.max(m, Math.abs(v - b[i]) || (v === b[i] ? 0 : Infinity))), a.length === b.length ? 0 : Infinity);

describe('onnxruntime-web (wasm) as a DecoderEngine vs our engine: agent-tiny exported to ONNX', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'ort-engine-'));
    const code = await exportCommand.run(parseArgs(['--model', AGENT_DIR, '--format', 'onnx', '--out', join(work, 'onnx-agent')]));
    expect(code).toBe(0);
    rt = await nodeRuntime();
    loaded = await loadModelFiles(await openNodeModelSource(AGENT_DIR));
    model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, lora: null, tune: false });
    ort = await openOnnxFolder(new NodeDirSource(join(work, 'onnx-agent')), { backend: 'wasm' });
    cfg = parseConfig(readFileSync(CONFIG, 'utf8'), CONFIG, { sets: ['rollout.batch_size=3', 'rollout.python_workers=1'] });
    const all = loadTasksFor(cfg, 'eval', () => {}) as AgentTask[];
    tasks = [...all.filter((t) => t.family === 'calculator').slice(0, TASKS / 2), ...all.filter((t) => t.family === 'lookup').slice(0, TASKS / 2)];
    svc = await startServices(cfg, () => {});
  }, 240_000);
  afterAll(async () => {
    model?.dispose();
    await ort?.engine.release();
    await svc?.pool?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('the export folder opens with our tokenizer and config (eos ids merged the same way)', () => {
    expect(ort.config.eosTokenIds.slice().sort()).toEqual(loaded.config.eosTokenIds.slice().sort());
    expect(ort.tokenizer.vocabSize).toBe(loaded.tokenizer.vocabSize);
    expect(ort.engine.label).toBe('onnxruntime-web wasm');
  });

  it('generateOn: greedy and seeded sampling give the same tokens on both engines; log-probs within 1e-4', async () => {
    const tok = loaded.tokenizer;
    const text = renderChat(tok.chatTemplate, [{ role: 'system', content: 'Call a tool, then give the answer inside <answer></answer>.' }, { role: 'user', content: (tasks[0] as AgentTask).question }], { addGenerationPrompt: true });
    const prompt = tok.encode(text, { addSpecialTokens: false });
    for (const opts of [{ temperature: 0, seed: 0 }, { temperature: 1, seed: 7 }, { temperature: 0.8, topK: 20, topP: 0.9, seed: 3 }]) {
      const run = (e: DecoderEngine) => generateOn(e, tok, [prompt, prompt.slice(0, 12)], { ...opts, maxNewTokens: 24, stopTokenIds: [...loaded.config.eosTokenIds] });
      const ours = await run(gpuEngine(rt, model));
      const theirs = await run(ort.engine);
      const d = Math.max(...ours.map((g, i) => maxAbs(g.logprobs, theirs[i].logprobs)));
      console.log(`generate ${JSON.stringify(opts)}: ${ours.map((g) => g.tokens.length).join('+')} tokens, identical ${ours.every((g, i) => g.tokens.join() === theirs[i].tokens.join())}, log-prob maxdiff ${d.toExponential(2)}; ours "${ours[0].text.slice(0, 60)}"`);
      expect(theirs.map((g) => g.tokens)).toEqual(ours.map((g) => g.tokens));
      expect(theirs.map((g) => g.text)).toEqual(ours.map((g) => g.text));
      expect(d).toBeLessThan(1e-4);
    }
  }, 240_000);

  it('evaluate (agent env, greedy, python + search tools): same per-task results and completions', async () => {
    const base = { cfg, tokenizer: loaded.tokenizer, env: buildEnvironment(cfg, svc.services), chat: templateChoice(cfg.model.template), hooks: composeHooks() };
    const ours = await evaluate({ ...base, rt, model }, tasks, 1, 0);
    const theirs = await evaluate({ ...base, engine: ort.engine }, tasks, 1, 0);
    const d = Math.max(...ours.episodes.map((e, i) => maxAbs(Array.from(e.logprobs), Array.from(theirs.episodes[i].logprobs))));
    console.log(`eval on ${tasks.length} held-out tasks: ours ${JSON.stringify(ours.correct)} | ort ${JSON.stringify(theirs.correct)}; tokens identical ${ours.episodes.every((e, i) => e.tokens.join() === theirs.episodes[i].tokens.join())}; log-prob maxdiff ${d.toExponential(2)}; tool calls ${ours.episodes.map((e) => e.toolCalls.length).join(',')}`);
    expect(theirs.correct).toEqual(ours.correct);
    expect(theirs.episodes.map((e) => e.tokens)).toEqual(ours.episodes.map((e) => e.tokens));
    expect(theirs.episodes.map((e) => e.messages)).toEqual(ours.episodes.map((e) => e.messages));
    expect(theirs.metrics).toEqual(ours.metrics);
    expect(d).toBeLessThan(1e-4);
  }, 300_000);

  it('`eval --engine ort --onnx DIR` prints the metrics evaluate() gives on our engine', async () => {
    const first = loadTasksFor(cfg, 'eval', () => {}).slice(0, 4);
    expect(cfg.eval.split).toBe('eval');
    const ours = await evaluate({ cfg, tokenizer: loaded.tokenizer, env: buildEnvironment(cfg, svc.services), chat: templateChoice('auto'), hooks: composeHooks(), rt, model }, first, 1, 0);
    const r = spawnSync(...cliCommand('eval', '--config', CONFIG, '--engine', 'ort', '--onnx', join(work, 'onnx-agent'), '--tasks', '4', '--samples', '1', '--set', 'eval.temperature=0', '--set', 'rollout.batch_size=3', '--set', 'rollout.python_workers=1'), { encoding: 'utf8', timeout: 240_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('engine: onnxruntime-web wasm');
    const printed = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
    console.log(`cli eval --engine ort: ${JSON.stringify(printed)}`);
    for (const [k, v] of Object.entries(ours.metrics)) expect(printed[k], k).toBe(v);
    const bad = spawnSync(...cliCommand('eval', '--config', CONFIG, '--engine', 'ort', '--onnx', AGENT_DIR, '--tasks', '1'), { encoding: 'utf8', timeout: 120_000 });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('has no onnx/ folder');
  }, 300_000);
});
