// `npm run cli -- serve`: the OpenAI-compatible server (src/server/openai) on a model loaded like
// `generate` does (optionally with a LoRA adapter), on loopback by default, capturing traces into
// a run folder. Runs until Ctrl-C. Exercised by tests/unit/server/serve-openai.test.ts (through
// startServe) and scripts/load-serve.ts.
import { basename, join } from 'node:path';
import type { CliCommand } from '../../util/args';
import { getNumber, getString } from '../../util/args';
import { loadCliModel, MODEL_OPTIONS } from '../../model/node-load';
import { DEFAULT_HTTP, startServe } from '../../server/openai/server';

function positiveInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} must be a non-negative integer, got ${v}`);
  return v;
}

export const command: CliCommand = {
  name: 'serve',
  summary: 'OpenAI-compatible chat server that records token-level traces',
  usage: `Usage: npm run cli -- serve --model PATH [options]

${MODEL_OPTIONS}
  --host H                address to listen on (default 127.0.0.1; the Host header must name it)
  --port N                default 8000 (0: any free port)
  --model-id NAME         the name clients pass as "model" (default: the model folder's name)
  --api-key KEY           require "Authorization: Bearer KEY" (default: $RL_STUDIO_API_KEY, else none)
  --out DIR               run folder; traces go to DIR/traces/*.jsonl (default runs/serve-<time>)
  --max-batch N           sequences decoded together (default 8)
  --max-context N         tokens per sequence, prompt + completion (default min(model, 2048))
  --max-n N               largest n per request (default ${DEFAULT_HTTP.maxN}, at most --max-batch)
  --max-body BYTES        largest request body (default ${DEFAULT_HTTP.maxBodyBytes})
  --rate-limit N          requests per minute per client address (default ${DEFAULT_HTTP.rateLimit}; 0 = off)
  --max-queue N           waiting requests beyond which new ones get 429 (default ${DEFAULT_HTTP.maxQueue})

Routes: GET /v1/models, POST /v1/chat/completions, POST /v1/rollouts/{id}/reward, GET /health.
A rollout is named by the x-rollout-id header, metadata.rollout_id, or a base URL of
http://HOST:PORT/rollout/{id}/v1; its task by x-task-id or metadata.task_id.`,
  async run(args) {
    const { rt, loaded, model } = await loadCliModel(args);
    const modelPath = getString(args, 'model') ?? 'model';
    const maxBatch = positiveInt('max-batch', getNumber(args, 'max-batch', 8));
    const maxContext = positiveInt('max-context', getNumber(args, 'max-context', Math.min(model.cfg.maxPositions, 2048)));
    const maxN = positiveInt('max-n', getNumber(args, 'max-n', Math.min(DEFAULT_HTTP.maxN, maxBatch)));
    if (maxN > maxBatch) throw new Error(`--max-n ${maxN} is larger than --max-batch ${maxBatch}; the n choices of a request run in one batch`);
    const token = getString(args, 'api-key') ?? process.env.RL_STUDIO_API_KEY;
    const out = getString(args, 'out', join('runs', `serve-${new Date().toISOString().replace(/[:.]/g, '-')}`));
    const s = await startServe(rt, model, loaded.tokenizer, loaded.config.eosTokenIds, {
      modelId: getString(args, 'model-id', basename(modelPath).replace(/\.bin$/, '')),
      host: getString(args, 'host', '127.0.0.1'), port: positiveInt('port', getNumber(args, 'port', 8000)), outDir: out, maxBatch, maxContext,
      http: {
        maxBodyBytes: positiveInt('max-body', getNumber(args, 'max-body', DEFAULT_HTTP.maxBodyBytes)),
        rateLimit: positiveInt('rate-limit', getNumber(args, 'rate-limit', DEFAULT_HTTP.rateLimit)),
        maxN, maxQueue: positiveInt('max-queue', getNumber(args, 'max-queue', DEFAULT_HTTP.maxQueue)),
        ...(token ? { token } : {}),
      },
    });
    process.stderr.write(`serving "${s.deps.served.id}" at ${s.url}/v1 (batch ${maxBatch}, context ${maxContext}${token ? ', bearer token required' : ''}); traces in ${join(out, 'traces')}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    process.stderr.write('shutting down\n');
    await s.close();
    model.dispose();
    return 0;
  },
};
