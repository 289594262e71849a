// What the engine worker's chat and evaluate requests share: the env services of the last config
// (kept warm: Pyodide takes seconds to start; replaced when another env is asked for) and each
// loaded model again with a run's adapter read from OPFS (runs/<runId>/adapter/), loaded once.
// Exercised by tests/e2e/studio-playground.spec.ts and studio-eval.spec.ts.
import type { GpuRuntime } from '../../gpu/runtime';
import type { LoadedModel } from '../../model/io/loader';
import { ADAPTER_CONFIG, ADAPTER_WEIGHTS, readPeftAdapter } from '../../model/io/peft';
import { GpuModel } from '../../model/gpu/model';
import type { RlConfig } from '../../rl/config-validate';
import { servicesKey, type RunServices } from '../../rl/env-services';
import { OpfsStorage } from '../../run/opfs-storage';
import { StorageSource } from '../../run/storage';
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
  /** `${modelId}|${runId}` -> the model with that run's adapter. */
  private readonly adapters = new Map<string, Promise<GpuModel>>();

  constructor(private readonly modelOf: (modelId: string) => ModelEntry | undefined, readonly runtime: () => Promise<GpuRuntime>) {}

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

  /** The model again with the adapter of run `runId` (OPFS runs/<runId>/adapter/), loaded once. */
  withAdapter(modelId: string, runId: string): Promise<GpuModel> {
    const m = this.model(modelId);
    const key = `${modelId}|${runId}`;
    let p = this.adapters.get(key);
    if (!p) {
      p = (async () => {
        const storage = await OpfsStorage.open(`runs/${runId}`);
        const files = await storage.list('adapter');
        if (!files.includes(ADAPTER_WEIGHTS) || !files.includes(ADAPTER_CONFIG)) {
          throw new Error(`run ${runId} has no adapter yet (${storage.where('adapter')} lacks ${ADAPTER_WEIGHTS}); a run writes it when it ends: pick a finished run`);
        }
        const lora = await readPeftAdapter(new StorageSource(storage, 'adapter'), m.loaded.config);
        const w = m.loaded.weights;
        return GpuModel.load(await this.runtime(), m.loaded.config, { read: (n) => w.read(n), has: (n) => w.tensors.has(n) }, {
          quant: m.quant, quantEmbeddings: m.quantEmbeddings, lora, tune: false,
        });
      })();
      this.adapters.set(key, p);
      p.catch(() => this.adapters.delete(key));
    }
    return p;
  }
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
