// Starts the OpenAI-compatible server around a loaded GPU model: the batching scheduler, the
// trace store in the run folder and the node:http server on host:port (loopback by default).
// Used by `npm run cli -- serve` (src/cli/commands/serve.ts) and tests/unit/server/serve-openai.test.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GpuRuntime } from '../../gpu/runtime';
import type { GpuModel } from '../../model/gpu/model';
import type { Tokenizer } from '../../model/tokenizer';
import type { ChatDeps } from './completions';
import { createServeHandler, LOOPBACK_HOSTS, type HttpOptions } from './http';
import type { OnlineTrainer } from './online';
import { Scheduler } from './scheduler';
import { TraceStore } from './traces';

export interface ServeOptions {
  /** The name clients pass as `model`. */
  modelId: string;
  host: string;
  /** 0: any free port. */
  port: number;
  /** Run folder for traces/ (null: traces kept in memory only). */
  outDir: string | null;
  maxBatch: number;
  maxContext: number;
  http: Omit<HttpOptions, 'allowedHosts'> & { allowedHosts?: string[] };
  /** serve --online: the trainer of the served adapter (its tensors are attached to `model`). */
  online?: OnlineTrainer;
}

export const DEFAULT_HTTP: Omit<HttpOptions, 'allowedHosts'> = { maxBodyBytes: 4 << 20, rateLimit: 600, maxN: 8, maxQueue: 256 };

export interface RunningServer {
  url: string;
  server: Server;
  deps: ChatDeps;
  close(): Promise<void>;
}

export async function startServe(rt: GpuRuntime, model: GpuModel, tok: Tokenizer, modelEosTokenIds: number[], o: ServeOptions): Promise<RunningServer> {
  const scheduler = new Scheduler(rt, model, tok, { maxBatch: o.maxBatch, maxContext: o.maxContext });
  const traces = new TraceStore({ dir: o.outDir });
  const deps: ChatDeps = { served: { id: o.modelId, rt, model, tok, modelEosTokenIds, created: Math.floor(Date.now() / 1000) }, scheduler, traces, online: o.online ?? null };
  // The loopback names, plus the host the server was bound to when that is something else.
  const allowedHosts = o.http.allowedHosts ?? [...LOOPBACK_HOSTS, ...(LOOPBACK_HOSTS.includes(o.host) || o.host === '0.0.0.0' ? [] : [o.host])];
  // The n choices of a request run in one batch: n can be at most the batch.
  const handler = createServeHandler(deps, { ...o.http, maxN: Math.min(o.http.maxN, o.maxBatch), allowedHosts });
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${shownHost}:${port}`, server, deps,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await o.online?.idle();
      await scheduler.close();
    },
  };
}
