// The engine inside the worker: owns the GPU device, the loaded models and the runs. Answers each
// EngineRequest (protocol.ts) with one result or error; relays each run's RunEvents (without file
// bytes) while the recorder writes the run folder to OPFS (src/run/opfs-storage.ts). A lost device
// fails every live run with its last checkpoint named. Every trainer (SFT, GRPO, rejection
// sampling, reward-weighted) with every environment: the Python pool and search corpus an env
// needs run in this worker (services.ts) and close when the run ends. Chat replies: chat.ts;
// held-out evaluation: evaluate.ts. Model folders are inspected and kept in OPFS (inspect.ts,
// user-models.ts); run folders are zipped for download (run-scan.ts). Stored runs (runs.ts):
// listed, read, imported, deleted and resumed from their last checkpoint.
// Exercised by tests/e2e/run-worker.spec.ts through engine.worker.ts and client.ts.
import { getBrowserGpu } from '../../gpu/browser-gpu';
import { GpuRuntime } from '../../gpu/runtime';
import { isCpuAdapter } from '../../gpu/device';
import { setTuningStore } from '../../gpu/tuning';
import { loadModelFiles, type LoadedModel } from '../../model/io/loader';
import { GpuModel } from '../../model/gpu/model';
import { parseConfig } from '../../rl/config-validate';
import type { RunConfig } from '../../run/config';
import { taskFile, tasksFromText } from '../../rl/env-factory';
import { resumePoint, runTraining } from '../../run/rl-run';
import { applyCommand, fanOut, withoutFiles, type RunEmit } from '../../run/events';
import { OpfsStorage } from '../../run/opfs-storage';
import { recordRun } from '../../run/recorder';
import { createRlContext } from '../../run/rl-context';
import { listFiles, readText, type RunStorage } from '../../run/storage';
import { CONFIG_FILE } from '../../run/layout';
import { prepareResume, savedSftData } from '../../run/resume';
import { restoreTrainState } from '../../train/trainer-state';
import { RunControl } from '../../train/run-control';
import { readSftJsonl } from '../../train/data';
import { planSftRun, resolveSftConfig, resumeConfig, SftRun } from '../../run/sft-run';
import { sftInputOf, sftMaxLength, sftTemplateOf } from '../../run/trainer-settings';
import { inspectModel } from './inspect';
import { openModelSource } from './model-source';
import type { DatasetSource, EngineReply, EngineRequest, EngineResults, ModelInfo, RunStatus } from './protocol';
import { exportRun, scanRuns } from './run-scan';
import { importUserModel, listUserModels, removeUserModel } from './user-models';
import { checkRunId, deleteStoredRun, importRunFiles, lockRun, openStoredRun, readSource, resumeDataset, runsTrainingElsewhere, storedRunIds, summarize, writeSource } from './runs';
import { ChatHost } from './chat';
import { evaluateRequest } from './evaluate';
import { openTuningStore } from './tuning-store';
import { Policies, Serial } from './policies';
import { shippedText, workerServices } from './services';
import { tokenPieces } from './decode';
import { scoreText } from './score';
import { planRequest } from './plan';
import { defaultAttentionVariant } from '../../gpu/kernels/attention';
import { defaultBackwardVariant } from '../../gpu/kernels/linear-backward';
import { normChunk } from '../../gpu/kernels/adamw';
import { planOfRun } from '../../run/run-plan';
import { previewTokens } from './preview-tokens';
import { stepTimeRequest } from './step-time';

type Post = (msg: EngineReply, transfer?: Transferable[]) => void;

interface LoadedEntry {
  loaded: LoadedModel;
  model: GpuModel;
  quant: 'none' | 'nf4';
  quantEmbeddings: boolean;
  /** What holds the model (a run training on it, a step being timed), in words; null when free. */
  busy: string | null;
}

interface RunEntry {
  status: RunStatus;
  control: RunControl;
  storage: RunStorage;
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
  private readonly policies = new Policies((id) => this.models.get(id), () => this.runtime());
  private readonly serial = new Serial();
  private readonly chats = new ChatHost(this.policies, this.serial);

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
        case 'list-run': return this.reply(req.id, 'list-run', await listFiles(await this.storageOf(req.runId), ''));
        case 'chat': return this.reply(req.id, 'chat', await this.chats.chat(req, (event) => this.post({ kind: 'chat-event', id: req.id, event })));
        case 'evaluate': return this.reply(req.id, 'evaluate', await evaluateRequest(this.policies, this.serial, req,
          (done, total, stage) => this.post({ kind: 'progress', id: req.id, done, total, stage })));
        case 'read-run-file': {
          const bytes = await (await this.storageOf(req.runId)).read(req.path);
          return this.reply(req.id, 'read-run-file', bytes, bytes ? [bytes.buffer as ArrayBuffer] : []);
        }
        case 'plan-run': {
          const rt = await this.runtime();
          const kernels = { attention: defaultAttentionVariant(rt), backward: defaultBackwardVariant(rt), gradNormChunk: normChunk(rt.report) };
          return this.reply(req.id, 'plan-run', await planRequest(await openModelSource(req.source), req.configYaml, rt.report.limits, kernels));
        }
        case 'preview-tokens': return this.reply(req.id, 'preview-tokens', await previewTokens(await openModelSource(req.source), req.configYaml, req.data));
        case 'time-step': return this.reply(req.id, 'time-step', await stepTimeRequest(this.policies, this.serial, req,
          (done, total, stage) => this.post({ kind: 'progress', id: req.id, done, total, stage })));
        case 'inspect-model': return this.reply(req.id, 'inspect-model', await inspectModel(await openModelSource(req.source)));
        case 'import-model': return this.reply(req.id, 'import-model', await importUserModel(req.name, req.files, req.paths,
          (done, total, stage) => this.post({ kind: 'progress', id: req.id, done, total, stage })));
        case 'list-models': return this.reply(req.id, 'list-models', await listUserModels());
        case 'remove-model': return this.reply(req.id, 'remove-model', (await removeUserModel(req.name), null));
        case 'scan-runs': return this.reply(req.id, 'scan-runs', await scanRuns());
        case 'export-run': {
          const x = await exportRun(req.runId, req.parts);
          return this.reply(req.id, 'export-run', x, [x.bytes.buffer as ArrayBuffer]);
        }
        case 'list-runs': {
          const elsewhere = await runsTrainingElsewhere();
          return this.reply(req.id, 'list-runs', await Promise.all((await storedRunIds()).map(async (id) => {
            const live = this.runs.get(id);
            return summarize(id, live?.storage ?? await openStoredRun(id), live ? statusOf(live) : null, !live && elsewhere.has(id))
              .catch((e: unknown) => { throw new Error(`run ${id}: ${(e as Error).message}`); });
          })));
        }
        case 'resume-run': return this.reply(req.id, 'resume-run', await this.startRun(await this.resumeRequest(req), true));
        case 'import-run': return this.reply(req.id, 'import-run', await summarize(req.runId, await importRunFiles(req.runId, req.files), null));
        case 'delete-run': {
          const live = this.runs.get(req.runId);
          if (live && LIVE.includes(live.status.phase)) throw new Error(`run ${req.runId} is ${live.status.phase}; stop it before deleting it`);
          if (!live && (await runsTrainingElsewhere()).has(req.runId)) throw new Error(`run ${req.runId} is training in another tab of this browser; stop it there before deleting it`);
          this.runs.delete(req.runId);
          this.policies.forgetRun(req.runId);
          await deleteStoredRun(req.runId);
          return this.reply(req.id, 'delete-run', null);
        }
        case 'decode-tokens': {
          const m = this.models.get(req.modelId);
          if (!m) throw new Error(`no model "${req.modelId}" loaded; its tokens cannot be decoded`);
          return this.reply(req.id, 'decode-tokens', tokenPieces(m.loaded.tokenizer, req.tokens));
        }
        case 'score-text': return this.reply(req.id, 'score-text', await scoreText(this.policies, this.serial, req));
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

  /** A run of this worker, or any run stored in OPFS runs/. */
  private async storageOf(runId: string): Promise<RunStorage> {
    return this.runs.get(runId)?.storage ?? openStoredRun(runId);
  }

  /** A resume as a start of the stored run: its config.yaml, and its data (runs.ts resumeDataset). */
  private async resumeRequest(req: Extract<EngineRequest, { kind: 'resume-run' }>): Promise<Extract<EngineRequest, { kind: 'start-run' }>> {
    const live = this.runs.get(req.runId);
    if (live && LIVE.includes(live.status.phase)) throw new Error(`run ${req.runId} is ${live.status.phase} in this worker; it needs no resume`);
    const s = await openStoredRun(req.runId);
    const configYaml = await readText(s, CONFIG_FILE);
    if (configYaml === null) throw new Error(`${s.where(CONFIG_FILE)} is missing; a run folder without its config cannot be resumed`);
    const cfg = parseConfig(configYaml, s.where(CONFIG_FILE));
    const dataset = resumeDataset(req.dataset, await readSource(s), cfg.data.dataset, cfg.trainer, cfg.data.env);
    this.runs.delete(req.runId);
    return { kind: 'start-run', id: req.id, modelId: req.modelId, configYaml, runId: req.runId, ...(dataset ? { dataset } : {}) };
  }

  /** Test builds only (engine.worker.ts, `vite build --mode test`): loses the GPU device as a driver would. */
  loseDeviceForTest(): boolean {
    if (!this.rt) return false;
    this.rt.device.destroy();
    return true;
  }

  /** The device opening in progress: concurrent requests (plan-run beside load-model) share one device. */
  private rtOpening: Promise<GpuRuntime> | null = null;

  private runtime(): Promise<GpuRuntime> {
    if (this.rt) return Promise.resolve(this.rt);
    this.rtOpening ??= this.openRuntime().finally(() => { this.rtOpening = null; });
    return this.rtOpening;
  }

  private async openRuntime(): Promise<GpuRuntime> {
    const rt = await GpuRuntime.create(getBrowserGpu());
    // Kernel choices timed once per GPU, remembered in OPFS (engine/tuning.json) across workers
    // and page loads; without OPFS they last as long as this worker.
    try {
      setTuningStore(await openTuningStore(await OpfsStorage.open('engine')));
    } catch { /* no OPFS here: the tuner remembers in memory */ }
    rt.onError((err) => {
      if (!rt.lost) return;
      const failed: RunStatus[] = [];
      for (const r of this.runs.values()) {
        if (!LIVE.includes(r.status.phase)) continue;
        r.status.phase = 'failed';
        r.status.error = err.message;
        failed.push({ ...r.status });
      }
      // err (GpuDeviceLostError) says to restart the engine; the client adds each run's last checkpoint.
      this.post({ kind: 'fatal', message: err.message, runs: failed });
    });
    this.rt = rt;
    return rt;
  }

  private async loadModel(req: Extract<EngineRequest, { kind: 'load-model' }>): Promise<ModelInfo> {
    const rt = await this.runtime();
    const loaded = await loadModelFiles(await openModelSource(req.source));
    const quantEmbeddings = req.quantEmbeddings ?? false;
    const model = await GpuModel.load(rt, loaded.config, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, {
      // Tuned unless told: at once on a GPU; a CPU adapter (SwiftShader) would spend ~5 s per
      // shape class compiling candidates, so it runs the measured defaults (defaultVariants).
      quant: req.quant, quantEmbeddings, tune: req.tune ?? !isCpuAdapter(rt.report),
      onProgress: (done, total, tensor) => this.post({ kind: 'progress', id: req.id, done, total, stage: tensor }),
    });
    const modelId = `model-${this.nextModel++}`;
    this.models.set(modelId, { loaded, model, quant: req.quant, quantEmbeddings, busy: null });
    const c = loaded.config;
    return { modelId, architecture: c.architecture, numLayers: c.numLayers, hiddenSize: c.hiddenSize, vocabSize: c.vocabSize, weightBytes: model.weightBytes };
  }

  /** A new run, or (`resume`) the stored run `req.runId` continued from its newest checkpoint as the CLI's --resume. */
  private async startRun(req: Extract<EngineRequest, { kind: 'start-run' }>, resume = false): Promise<{ runId: string }> {
    const m = this.models.get(req.modelId);
    if (!m) throw new Error(`no model "${req.modelId}" loaded; send load-model first`);
    if (m.busy) throw new Error(`model ${req.modelId} is ${m.busy}; wait for it to end or load the model again`);
    const cfg = parseConfig(req.configYaml, 'config.yaml');
    if (cfg.model.quant !== m.quant || cfg.model.quant_embeddings !== m.quantEmbeddings) {
      throw new Error(`config.yaml: model.quant ${cfg.model.quant}${cfg.model.quant_embeddings ? ' + embeddings' : ''} differs from the loaded model's (${m.quant}${m.quantEmbeddings ? ' + embeddings' : ''}); load it again with the config's settings`);
    }
    // No dataset sent: the config's task file (data.dataset, else the env's shipped train split) when it is a shipped one.
    const file = cfg.trainer === 'sft' ? null : taskFile(cfg, 'train');
    const text = req.dataset || !file ? await datasetText(cfg.data.env, req.dataset) : await shippedText(file, 'data.dataset');
    const runId = checkRunId(req.runId ?? `run-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    if (this.runs.has(runId)) throw new Error(`run "${runId}" already exists in this worker; pick another runId`);
    const release = await lockRun(runId);
    try {
      return await this.launch(req, resume, { m, cfg, text, file, runId, release });
    } catch (e) {
      release();
      throw e;
    }
  }

  /** The rest of startRun, under the run's lock (released when the loop ends). */
  private async launch(req: Extract<EngineRequest, { kind: 'start-run' }>, resume: boolean, a: { m: LoadedEntry; cfg: RunConfig; text: string | null; file: string | null; runId: string; release: () => void }): Promise<{ runId: string }> {
    const { m, cfg, text, runId } = a;
    const storage = await OpfsStorage.open(`runs/${runId}`);
    if (!resume && (await storage.list('')).length) throw new Error(`${storage.name} already holds files; pick another runId, or resume it (resume-run)`);
    if (!resume) await writeSource(storage, req.dataset);
    const rt = await this.runtime();
    const log = () => {};
    let startStep = 0, lastCheckpoint: string | null = null;
    const control = new RunControl();
    let loop: (emit: RunEmit) => Promise<unknown>, dispose: () => Promise<void>, total: number;
    if (cfg.trainer === 'sft') {
      if (text === null) throw new Error('config.yaml: trainer sft needs chat / text JSONL data; send its text as the dataset');
      const mc = m.loaded.config, input = sftInputOf(cfg);
      const r = resume ? await prepareResume(storage, mc, 'sft', log) : null;
      const state = r?.state ?? null;
      const maxLength = state ? savedSftData(state).maxLength ?? 512 : sftMaxLength(cfg, mc.maxPositions);
      const data = readSftJsonl(text, datasetName(req.dataset), { tokenizer: m.loaded.tokenizer, maxLength, vocabSize: mc.vocabSize, ...sftTemplateOf(cfg) });
      const ctx = { examples: data.examples.length, cfg: mc };
      // As `train` with trainer: sft resumes: the checkpoint's config, with the YAML's steps and checkpoint interval.
      const config = state ? resumeConfig(state, { steps: cfg.train.steps || undefined, saveEvery: cfg.log.checkpoint_every }, ctx) : resolveSftConfig({ ...input, maxLength }, ctx);
      const lora = state?.lora;
      const plan = planSftRun(mc, config, data, { quant: m.quant, quantEmbeddings: m.quantEmbeddings, maxRows: m.model.maxRows, lora: lora ? { rank: lora.rank, targets: lora.targets } : undefined, cursor: state?.rng.data, startStep: state?.step });
      const run = await SftRun.create(rt, m.model, { runId, plan, config, data, baseModelName: cfg.model.path, tokenizer: m.loaded.tokenizer, resume: state, resumedFrom: r?.dir });
      if (state) [startStep, lastCheckpoint] = [state.step, r?.dir ?? null];
      loop = (emit) => run.run(emit, config.steps, control);
      dispose = () => run.dispose();
      total = config.steps;
    } else {
      const tasks = tasksFromText(cfg, text, req.dataset ? datasetName(req.dataset) : (a.file ?? 'story'));
      // The env's tools (Python pool, search corpus) run here in the worker; closed when the run ends.
      const svc = await workerServices(cfg);
      const ctx = await createRlContext(cfg, { rt, model: m.model, tokenizer: m.loaded.tokenizer }, svc.services).catch(async (e: unknown) => {
        await svc.pool?.close();
        throw e;
      });
      let start: ReturnType<typeof resumePoint> | null = null;
      if (resume) {
        try {
          const r = await prepareResume(storage, m.model.cfg, cfg.trainer, log);
          if (r.state) {
            start = resumePoint(r.state);
            restoreTrainState(rt, ctx.trainer, r.state);
            [startStep, lastCheckpoint] = [start.step, r.dir];
          }
        } catch (e) {
          ctx.reference?.dispose();
          await ctx.trainer.dispose();
          await svc.pool?.close();
          throw e;
        }
      }
      loop = (emit) => runTraining({ ctx, tasks, runId, baseModelName: cfg.model.path, control, emit, plan: planOfRun(m.model.cfg, cfg)?.plan ?? null, ...(start ? { start } : {}) });
      dispose = async () => {
        await ctx.trainer.dispose();
        await svc.pool?.close();
      };
      total = cfg.train.steps;
    }
    // A model cached with this run's adapter is stale from now on (the run trains and rewrites it).
    this.policies.forgetRun(runId);
    const entry: RunEntry = { status: { runId, phase: 'starting', holding: false, step: startStep, total, lastCheckpoint, error: null }, control, storage };
    this.runs.set(runId, entry);
    m.busy = `training run ${runId}`;
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
    void loop(fanOut(recordRun(storage, { configYaml: req.configYaml, status: true, keepCheckpoints: cfg.log.keep_checkpoints }), track, relay))
      .catch(() => undefined /* reported by the loop's `failed` event */)
      .finally(async () => {
        m.busy = null;
        this.policies.forgetRun(runId);   // the adapter it wrote at its end replaces any cached one
        a.release();
        await dispose();
      });
    return { runId };
  }
}

async function datasetText(env: string, d: DatasetSource | undefined): Promise<string | null> {
  if (!d) return null;
  return 'text' in d ? d.text : shippedText(d.shipped, `dataset (${env})`);
}

const datasetName = (d: DatasetSource | undefined): string => (!d ? 'story' : 'text' in d ? d.name : d.shipped);
