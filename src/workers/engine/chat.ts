// The engine worker's `chat` request: one reply of the config's agent (src/rl/chat-agent.ts, the
// logic `npm run cli -- chat` uses) on a loaded model, or on that model with a run's adapter read
// from OPFS (policies.ts), its tools run in the worker (services.ts), its turns and tool results
// streamed to the page as ChatEvents. Replies run one at a time. Exercised by
// tests/e2e/studio-playground.spec.ts.
import type { ChatMessage } from '../../agents/chat-template';
import { ChatAgent } from '../../rl/chat-agent';
import { parseConfig, type RlConfig } from '../../rl/config-validate';
import { taskFile, tasksFromText } from '../../rl/env-factory';
import type { Policies, Serial } from './policies';
import type { ChatEvent, EngineRequest, EngineResults } from './protocol';
import { shippedText } from './services';

type ChatRequest = Extract<EngineRequest, { kind: 'chat' }>;

export class ChatHost {
  private readonly systems = new Map<string, Promise<ChatMessage[]>>();

  constructor(private readonly policies: Policies, private readonly serial: Serial) {}

  chat(req: ChatRequest, emit: (e: ChatEvent) => void): Promise<EngineResults['chat']> {
    return this.serial.run(() => this.reply(req, emit));
  }

  private async reply(req: ChatRequest, emit: (e: ChatEvent) => void): Promise<EngineResults['chat']> {
    const m = this.policies.model(req.modelId);
    const cfg = parseConfig(req.configYaml, 'config.yaml');
    const rt = await this.policies.runtime();
    return this.policies.use(req.modelId, req.adapter, async (model) => {
      const svc = await this.policies.services(cfg);
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
    });
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
}
