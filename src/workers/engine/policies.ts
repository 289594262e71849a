// What the engine worker's chat, score and evaluate requests share: the env services of the last
// config (kept warm: Pyodide takes seconds to start; replaced when another env is asked for) and
// each loaded model again with a run's adapter read from OPFS (runs/<runId>/adapter/): a small LRU
// cache, forgotten when the run starts, resumes, ends or is deleted, never disposed under a job.
// Exercised by tests/unit/workers/adapter-cache.test.ts, tests/e2e/studio-playground.spec.ts and studio-eval.spec.ts.
import type { GpuRuntime } from '../../gpu/runtime';
import type { LoadedModel } from '../../model/io/loader';
import { ADAPTER_CONFIG, ADAPTER_WEIGHTS, readPeftAdapter } from '../../model/io/peft';
import { GpuModel } from '../../model/gpu/model';
import type { RlConfig } from '../../rl/config-validate';
import { servicesKey, type RunServices } from '../../rl/env-services';
import { OpfsStorage } from '../../run/opfs-storage';
import { StorageSource, type RunStorage } from '../../run/storage';
import { workerServices } from './services';

/** What the worker's requests read of a model the engine loaded. */
export interface ModelEntry {
  loaded: LoadedModel;
  model: GpuModel;
  quant: 'none' | 'nf4';
  quantEmbeddings: boolean;
  /** What holds the model (a run training on it, a step being timed), in words; null when free. */
  busy: string | null;
}

export class Policies {
  private svc: { key: string; ready: Promise<RunServices> } | null = null;
  /** `${modelId}|${runId}` -> the model with that run's adapter, least recently used first. */
  private readonly adapters = new Map<string, AdapterEntry>();

  /** `openRun`: a run's folder (default OPFS runs/<runId>; tests pass a Node folder). */
  constructor(private readonly modelOf: (modelId: string) => ModelEntry | undefined, readonly runtime: () => Promise<GpuRuntime>,
    private readonly openRun: (runId: string) => Promise<RunStorage> = (runId) => OpfsStorage.open(`runs/${runId}`)) {}

  model(modelId: string): ModelEntry {
    const m = this.modelOf(modelId);
    if (!m) throw new Error(`no model "${modelId}" loaded; send load-model first`);
    return m;
  }

  /** The base model; refused while a run trains it (its adapter is attached then). */
  base(modelId: string): GpuModel {
    const m = this.model(modelId);
    if (m.busy) throw new Error(`model ${modelId} is ${m.busy}; wait for it to end, or use a finished run's adapter`);
    return m.model;
  }

  /** The env's Python pool and corpus. */
  services(cfg: RlConfig): Promise<RunServices> {
    const key = servicesKey(cfg);
    if (this.svc?.key !== key) {
      const old = this.svc;
      this.svc = { key, ready: workerServices(cfg) };
      if (old) void old.ready.then((s) => s.pool?.close(), () => undefined);
    }
    const svc = this.svc;
    return svc.ready.catch((e: unknown) => {
      if (this.svc === svc) this.svc = null;
      throw e;
    });
  }

  /**
   * Runs `job` on the base model (`runId` undefined) or on the model again with the adapter of run
   * `runId` (runs/<runId>/adapter/, loaded once and cached). A cached model is never disposed while
   * a job holds it: the cache keeps at most ADAPTER_CACHE models nobody uses, the least recently
   * used disposed first.
   */
  async use<T>(modelId: string, runId: string | undefined, job: (model: GpuModel) => Promise<T>): Promise<T> {
    if (runId === undefined) return job(this.base(modelId));
    const key = `${modelId}|${runId}`;
    let e = this.adapters.get(key);
    if (e) this.adapters.delete(key);   // re-inserted last: the Map's order is least recently used first
    else {
      const created: AdapterEntry = { runId, model: this.loadAdapter(modelId, runId), users: 0, dropped: false };
      // A failed load is not kept (the next request tries again).
      created.model.catch(() => { if (this.adapters.get(key) === created) this.adapters.delete(key); });
      e = created;
    }
    this.adapters.set(key, e);
    const entry = e;
    entry.users++;
    try {
      return await job(await entry.model);
    } finally {
      entry.users--;
      if (entry.dropped && entry.users === 0) disposeEntry(entry);
      this.evict();
    }
  }

  /**
   * Forgets every cached model with run `runId`'s adapter (the run starts, is resumed, ends with a
   * new adapter or is deleted): disposed now, or when the last job using it ends.
   */
  forgetRun(runId: string): void {
    for (const [key, e] of this.adapters) {
      if (e.runId !== runId) continue;
      this.adapters.delete(key);
      e.dropped = true;
      if (e.users === 0) disposeEntry(e);
    }
  }

  /** How many models with an adapter are cached (tests). */
  get cachedAdapters(): number {
    return this.adapters.size;
  }

  /** Disposes the least recently used idle models beyond the cap. */
  private evict(): void {
    let over = this.adapters.size - ADAPTER_CACHE;
    for (const [key, e] of this.adapters) {
      if (over <= 0) break;
      if (e.users > 0) continue;
      this.adapters.delete(key);
      disposeEntry(e);
      over--;
    }
  }

  private async loadAdapter(modelId: string, runId: string): Promise<GpuModel> {
    const m = this.model(modelId);
    const storage = await this.openRun(runId);
    const files = await storage.list('adapter');
    if (!files.includes(ADAPTER_WEIGHTS) || !files.includes(ADAPTER_CONFIG)) {
      throw new Error(`run ${runId} has no adapter yet (${storage.where('adapter')} lacks ${ADAPTER_WEIGHTS}); a run writes it when it ends: pick a finished run`);
    }
    const lora = await readPeftAdapter(new StorageSource(storage, 'adapter'), m.loaded.config);
    const w = m.loaded.weights;
    const model = await GpuModel.load(await this.runtime(), m.loaded.config, { read: (n) => w.read(n), has: (n) => w.tensors.has(n) }, {
      quant: m.quant, quantEmbeddings: m.quantEmbeddings, lora, tune: false,
    });
    // A finished run's adapter never changes in this model: chat, score and eval run it merged
    // into the weights (GpuModel.mergeLora; f32 and small models only).
    try {
      await model.mergeLora();
    } catch (e) {
      model.dispose();
      throw e;
    }
    return model;
  }
}

/** Models with a run's adapter kept loaded while no job uses them (each holds the base weights again). */
export const ADAPTER_CACHE = 2;

interface AdapterEntry {
  runId: string;
  model: Promise<GpuModel>;
  /** Jobs running on it now. */
  users: number;
  /** Forgotten while in use: disposed when the last job ends. */
  dropped: boolean;
}

function disposeEntry(e: AdapterEntry): void {
  e.model.then((m) => m.dispose(), () => undefined);
}

/** Runs jobs one at a time (one GPU, one Python pool). */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const next = this.tail.then(job);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
