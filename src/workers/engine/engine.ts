// The engine inside the worker: owns the GPU device, the loaded models and the runs. Answers each
// EngineRequest (protocol.ts) with one result or error; relays each run's RunEvents (without file
// bytes) while the recorder writes the run folder to OPFS (src/run/opfs-storage.ts). A lost device
// fails every live run with its last checkpoint named. Every trainer (SFT, GRPO, rejection
// sampling, reward-weighted); RL only with the environments that need no Python or corpus service.
// Exercised by tests/e2e/run-worker.spec.ts through engine.worker.ts and client.ts.
import { getBrowserGpu } from '../../gpu/browser-gpu';
import { GpuRuntime } from '../../gpu/runtime';
import { FileListSource } from '../../model/io/browser-source';
import { loadModelFiles, type LoadedModel } from '../../model/io/loader';
import { GpuModel } from '../../model/gpu/model';
import { parseConfig } from '../../rl/config-validate';
import { needsPython, tasksFromText } from '../../rl/env-factory';
import { runTraining } from '../../rl/run';
import { applyCommand, fanOut, withoutFiles, type RunEmit } from '../../run/events';
import { OpfsStorage } from '../../run/opfs-storage';
import { recordRun } from '../../run/recorder';
import { createRlContext } from '../../run/rl-context';
import { listFiles } from '../../run/storage';
import { RunControl } from '../../train/run-control';
import { readSftJsonl } from '../../train/data';
import { planSftRun, resolveSftConfig, SftRun } from '../../train/sft-run';
import { sftInputOf } from '../../run/trainer-settings';
import type { DatasetSource, EngineReply, EngineRequest, EngineResults, ModelInfo, RunStatus } from './protocol';
import { tokenPieces } from './decode';
import { UrlSource } from './url-source';

type Post = (msg: EngineReply, transfer?: Transferable[]) => void;

interface LoadedEntry {
  loaded: LoadedModel;
  model: GpuModel;
  quant: 'none' | 'nf4';
  quantEmbeddings: boolean;
  busy: boolean;
}

interface RunEntry {
  status: RunStatus;
  control: RunControl;
  storage: OpfsStorage;
}

const LIVE: RunStatus['phase'][] = ['starting', 'running', 'paused', 'stopping'];

/** A live run's phase is its RunControl's state (a pause sent before `started` still counts). */
function statusOf(r: RunEntry): RunStatus {
  const s = r.status, c = r.control.current;
  const phase = !LIVE.includes(s.phase) ? s.phase : c !== 'running' ? c : s.phase === 'starting' ? 'starting' : 'running';
  return { ...s, phase, holding: r.control.holding };
}

export class Engine {
  private rt: GpuRuntime | null = null;
  private readonly models = new Map<string, LoadedEntry>();
  private readonly runs = new Map<string, RunEntry>();
  private nextModel = 1;

  constructor(private readonly post: Post) {}

  async handle(req: EngineRequest): Promise<void> {
    try {
      switch (req.kind) {
        case 'load-model': return this.reply(req.id, 'load-model', await this.loadModel(req));
        case 'start-run': return this.reply(req.id, 'start-run', await this.startRun(req));
        case 'command': {
          const r = this.run(req.runId);
          if (!LIVE.includes(r.status.phase)) throw new Error(`run ${req.runId} is ${r.status.phase}; ${req.command.kind} applies to a live run`);
          applyCommand(r.control, req.command);
          return this.reply(req.id, 'command', statusOf(r));
        }
        case 'run-state': return this.reply(req.id, 'run-state', statusOf(this.run(req.runId)));
        case 'list-run': return this.reply(req.id, 'list-run', await listFiles(this.run(req.runId).storage, ''));
        case 'read-run-file': {
          const bytes = await this.run(req.runId).storage.read(req.path);
          return this.reply(req.id, 'read-run-file', bytes, bytes ? [bytes.buffer as ArrayBuffer] : []);
        }
        case 'decode-tokens': {
          const m = this.models.get(req.modelId);
          if (!m) throw new Error(`no model "${req.modelId}" loaded; its tokens cannot be decoded`);
          return this.reply(req.id, 'decode-tokens', tokenPieces(m.loaded.tokenizer, req.tokens));
        }
      }
    } catch (e) {
      this.post({ kind: 'error', id: req.id, message: (e as Error).message });
    }
  }

  private reply<K extends keyof EngineResults>(id: number, request: K, value: EngineResults[K], transfer: Transferable[] = []): void {
    this.post({ kind: 'result', id, request, value } as EngineReply, transfer);
  }

  private run(runId: string): RunEntry {
    const r = this.runs.get(runId);
    if (!r) throw new Error(`no run "${runId}" in this worker (runs: ${[...this.runs.keys()].join(', ') || 'none'})`);
    return r;
  }

  private async runtime(): Promise<GpuRuntime> {
    if (this.rt) return this.rt;
    const rt = await GpuRuntime.create(getBrowserGpu());
    rt.onError((err) => {
      if (!rt.lost) return;
      const failed: RunStatus[] = [];
      for (const r of this.runs.values()) {
        if (!LIVE.includes(r.status.phase)) continue;
        r.status.phase = 'failed';
        r.status.error = `GPU device lost: ${err.message}`;
        failed.push({ ...r.status });
      }
      this.post({ kind: 'fatal', message: `GPU device lost: ${err.message}; reload the page and resume from the last checkpoint`, runs: failed });
    });
    this.rt = rt;
    return rt;
  }

  private async loadModel(req: Extract<EngineRequest, { kind: 'load-model' }>): Promise<ModelInfo> {
    const rt = await this.runtime();
    const src = 'url' in req.source ? new UrlSource(req.source.url) : new FileListSource(req.source.files);
    const loaded = await loadModelFiles(src);
    const quantEmbeddings = req.quantEmbeddings ?? false;
    const model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, {
      quant: req.quant, quantEmbeddings, tune: req.tune ?? false,
      onProgress: (done, total, tensor) => this.post({ kind: 'progress', id: req.id, done, total, stage: tensor }),
    });
    const modelId = `model-${this.nextModel++}`;
    this.models.set(modelId, { loaded, model, quant: req.quant, quantEmbeddings, busy: false });
    const c = loaded.config;
    return { modelId, architecture: c.architecture, numLayers: c.numLayers, hiddenSize: c.hiddenSize, vocabSize: c.vocabSize, weightBytes: model.weightBytes };
  }

  private async startRun(req: Extract<EngineRequest, { kind: 'start-run' }>): Promise<{ runId: string }> {
    const m = this.models.get(req.modelId);
    if (!m) throw new Error(`no model "${req.modelId}" loaded; send load-model first`);
    if (m.busy) throw new Error(`model ${req.modelId} is training another run; wait for it to end or load the model again`);
    const cfg = parseConfig(req.configYaml, 'config.yaml');
    if (needsPython(cfg) || (cfg.trainer !== 'sft' && (cfg.data.env === 'search_qa' || cfg.data.env === 'agent'))) {
      throw new Error(`config.yaml: data.env ${cfg.data.env} needs the Python or search service, which the engine worker does not start yet; use \`npm run cli -- train\``);
    }
    if (cfg.model.quant !== m.quant || cfg.model.quant_embeddings !== m.quantEmbeddings) {
      throw new Error(`config.yaml: model.quant ${cfg.model.quant}${cfg.model.quant_embeddings ? ' + embeddings' : ''} differs from the loaded model's (${m.quant}${m.quantEmbeddings ? ' + embeddings' : ''}); load it again with the config's settings`);
    }
    const text = await datasetText(cfg.data.env, req.dataset);
    const runId = req.runId ?? `run-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    if (this.runs.has(runId)) throw new Error(`run "${runId}" already exists in this worker; pick another runId`);
    const storage = await OpfsStorage.open(`runs/${runId}`);
    if ((await storage.list('')).length) throw new Error(`${storage.name} already holds files; pick another runId (resuming in the worker is not built yet)`);
    const rt = await this.runtime();
    const control = new RunControl();
    let loop: (emit: RunEmit) => Promise<unknown>, dispose: () => Promise<void>, total: number;
    if (cfg.trainer === 'sft') {
      if (text === null) throw new Error('config.yaml: trainer sft needs chat / text JSONL data; send its text as the dataset');
      const mc = m.loaded.config, input = sftInputOf(cfg);
      const maxLength = input.maxLength ?? Math.min(512, mc.maxPositions);
      const data = readSftJsonl(text, datasetName(req.dataset), { tokenizer: m.loaded.tokenizer, maxLength, vocabSize: mc.vocabSize });
      const config = resolveSftConfig({ ...input, maxLength }, { examples: data.examples.length, cfg: mc });
      const plan = planSftRun(mc, config, data, { quant: m.quant, quantEmbeddings: m.quantEmbeddings, maxRows: m.model.maxRows });
      const run = await SftRun.create(rt, m.model, { runId, plan, config, data, baseModelName: cfg.model.path, tokenizer: m.loaded.tokenizer });
      loop = (emit) => run.run(emit, config.steps, control);
      dispose = () => run.dispose();
      total = config.steps;
    } else {
      const tasks = tasksFromText(cfg, text, datasetName(req.dataset));
      const ctx = await createRlContext(cfg, { rt, model: m.model, tokenizer: m.loaded.tokenizer }, {});
      loop = (emit) => runTraining({ ctx, tasks, runId, baseModelName: cfg.model.path, control, emit });
      dispose = () => ctx.trainer.dispose();
      total = cfg.train.steps;
    }
    const entry: RunEntry = { status: { runId, phase: 'starting', holding: false, step: 0, total, lastCheckpoint: null, error: null }, control, storage };
    this.runs.set(runId, entry);
    m.busy = true;
    const track: RunEmit = (e) => {
      const st = entry.status;
      if (e.kind === 'started') st.phase = 'running';
      if (e.kind === 'progress') st.step = e.step;
      if (e.kind === 'checkpoint') st.lastCheckpoint = e.path;
      if (e.kind === 'finished' || e.kind === 'cancelled') st.phase = e.kind;
      if (e.kind === 'failed') {
        st.phase = 'failed';
        st.error = e.message;
      }
    };
    const relay: RunEmit = (e) => this.post({ kind: 'event', runId, event: withoutFiles(e) });
    void loop(fanOut(recordRun(storage, { configYaml: req.configYaml }), track, relay))
      .catch(() => undefined /* reported by the loop's `failed` event */)
      .finally(async () => {
        m.busy = false;
        await dispose();
      });
    return { runId };
  }
}

async function datasetText(env: string, d: DatasetSource | undefined): Promise<string | null> {
  if (!d) return null;
  if ('text' in d) return d.text;
  const url = `/datasets/${encodeURIComponent(d.shipped)}`;
  const r = await fetch(url);
  if (!r.ok || (r.headers.get('content-type') ?? '').includes('text/html')) throw new Error(`dataset ${d.shipped} (${env}): ${url} is not served; pass the file's text instead`);
  return r.text();
}

const datasetName = (d: DatasetSource | undefined): string => (!d ? 'story' : 'text' in d ? d.name : d.shipped);
