// The engine worker's `chat` request: one reply of the config's agent (src/rl/chat-agent.ts, the
// logic `npm run cli -- chat` uses) on a loaded model, or on that model with a run's adapter read
// from OPFS (runs/<runId>/adapter/), its tools run in the worker (services.ts), its turns and tool
// results streamed to the page as ChatEvents. Replies run one at a time. Exercised by
// tests/e2e/studio-playground.spec.ts.
import type { ChatMessage } from '../../agents/chat-template';
import type { GpuRuntime } from '../../gpu/runtime';
import type { LoadedModel } from '../../model/io/loader';
import { ADAPTER_CONFIG, ADAPTER_WEIGHTS, readPeftAdapter } from '../../model/io/peft';
import { GpuModel } from '../../model/gpu/model';
import { ChatAgent } from '../../rl/chat-agent';
import { parseConfig, type RlConfig } from '../../rl/config-validate';
import { taskFile, tasksFromText } from '../../rl/env-factory';
import { corpusFile, type RunServices } from '../../rl/env-services';
import { OpfsStorage } from '../../run/opfs-storage';
import { StorageSource } from '../../run/storage';
import type { ChatEvent, EngineRequest, EngineResults } from './protocol';
import { shippedText, workerServices } from './services';

/** What the host reads of a model the engine loaded. */
export interface ChatModelEntry {
  loaded: LoadedModel;
  model: GpuModel;
  quant: 'none' | 'nf4';
  quantEmbeddings: boolean;
  busy: boolean;
}

type ChatRequest = Extract<EngineRequest, { kind: 'chat' }>;

export class ChatHost {
  /** The services of the last env chatted with (kept warm: Pyodide takes seconds to start). */
  private svc: { key: string; ready: Promise<RunServices> } | null = null;
  /** `${modelId}|${runId}` -> the model with that run's adapter. */
  private readonly adapters = new Map<string, Promise<GpuModel>>();
  private readonly systems = new Map<string, Promise<ChatMessage[]>>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly modelOf: (modelId: string) => ChatModelEntry | undefined, private readonly runtime: () => Promise<GpuRuntime>) {}

  chat(req: ChatRequest, emit: (e: ChatEvent) => void): Promise<EngineResults['chat']> {
    const next = this.queue.then(() => this.reply(req, emit));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async reply(req: ChatRequest, emit: (e: ChatEvent) => void): Promise<EngineResults['chat']> {
    const m = this.modelOf(req.modelId);
    if (!m) throw new Error(`no model "${req.modelId}" loaded; send load-model first`);
    const cfg = parseConfig(req.configYaml, 'config.yaml');
    if (!req.adapter && m.busy) throw new Error(`model ${req.modelId} is training a run (its adapter is attached); wait for the run to end, or chat with a finished run's adapter`);
    const rt = await this.runtime();
    const model = req.adapter ? await this.adapterModel(req.modelId, m, req.adapter) : m.model;
    const svc = await this.services(cfg);
    const agent = new ChatAgent(cfg, svc.services, { rt, model, tokenizer: m.loaded.tokenizer }, {
      open: () => emit({ type: 'turn-start' }), text: (text) => emit({ type: 'text', text }), close: () => emit({ type: 'turn-end' }),
    });
    try {
      const system = await this.systemOf(cfg, agent);
      const ep = await agent.reply([...system, ...req.messages.filter((x) => x.role !== 'system')], req.settings, `chat-${req.id}`, (results) => emit({
        type: 'tools',
        results: results.map((r) => ({ name: r.name, args: r.args, ok: r.ok, ...(r.error ? { error: r.error } : {}), text: r.text, latencyMs: r.latencyMs })),
      }));
      return { messages: ep.messages, finishReason: ep.finishReason, error: ep.error ?? null, tools: agent.toolNames() };
    } finally {
      agent.free();
    }
  }

  /** The env's opening system message(s), from the first task of its eval split (as the CLI chat). */
  private systemOf(cfg: RlConfig, agent: ChatAgent): Promise<ChatMessage[]> {
    const file = taskFile(cfg, 'eval');
    const key = `${cfg.data.env}|${file}|${cfg.env.system_prompt ?? ''}`;
    let p = this.systems.get(key);
    if (!p) {
      p = (async () => {
        const text = file ? await shippedText(file, cfg.data.eval_dataset ? 'data.eval_dataset' : 'eval tasks') : null;
        return agent.systemMessages(tasksFromText(cfg, text, file ?? 'story')[0]);
      })();
      this.systems.set(key, p);
      p.catch(() => this.systems.delete(key));
    }
    return p;
  }

  /** The env's Python pool and corpus, started once per env and replaced when another env is asked for. */
  private async services(cfg: RlConfig): Promise<RunServices> {
    const r = cfg.rollout;
    const key = `${cfg.data.env}|${cfg.env.python_tool}|${corpusFile(cfg)}|${r.python_workers}|${r.tool_timeout_ms}`;
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
  private adapterModel(modelId: string, m: ChatModelEntry, runId: string): Promise<GpuModel> {
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
