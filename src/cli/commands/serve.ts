// `npm run cli -- serve`: the OpenAI-compatible server (src/server/openai) on a model loaded like
// `generate` does (optionally with a LoRA adapter), on loopback by default, capturing traces into
// a run folder; with --online it also trains the served adapter from rewarded rollouts
// (server/openai/online.ts). Runs until Ctrl-C. Exercised by tests/unit/server/serve-openai.test.ts
// and serve-online.test.ts (through startServe) and scripts/load-serve.ts.
import { basename, join } from 'node:path';
import type { CliCommand } from '../../util/args';
import { getBool, getNumber, getString } from '../../util/args';
import { loadCliModel, MODEL_OPTIONS } from '../../model/node-load';
import { DEFAULT_CONFIG } from '../../rl/config-schema';
import { OnlineTrainer } from '../../server/openai/online';
import { DEFAULT_HTTP, startServe } from '../../server/openai/server';
import { openTraceTrainer, withoutAdapter, type TraceTrainerSetup } from './train-traces';
import { warmUp } from '../../model/warm-up';

/** The run config's log.keep_checkpoints default, so served runs keep as many as trained ones. */
const DEFAULT_KEEP = DEFAULT_CONFIG.log.keep_checkpoints;

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

Online training (the served LoRA adapter learns from rewarded rollouts while serving):
  --online                train: every --online-batch rewarded rollouts, one update, then hot swap
  --online-batch N        rewarded rollouts per update (default 8; GRPO groups them by task id)
  --checkpoint-every N    write OUT/checkpoints/step-N/ every N updates (default 1; 0: none)
  --keep-checkpoints N    keep the newest N checkpoint folders, older ones removed (default
                          ${DEFAULT_KEEP}, as log.keep_checkpoints; 0: keep all)
  --adapter DIR           with --online: the adapter to continue (default a fresh LoRA, a no-op at first)
  train-traces flags      --trainer --steps --lr --rank --alpha --targets --seed --micro-batch --beta
                          --epsilon-low --epsilon-high --loss-type --scale-rewards --threshold --clip
                          (see \`npm run cli -- train-traces --help\`; --steps = optimizer steps per update)

Routes: GET /v1/models, POST /v1/chat/completions, POST /v1/rollouts/{id}/reward, GET /health,
GET /v1/train/status (--online).
A rollout is named by the x-rollout-id header, metadata.rollout_id, or a base URL of
http://HOST:PORT/rollout/{id}/v1; its task by x-task-id or metadata.task_id.`,
  async run(args) {
    const online = getBool(args, 'online', false);
    // Online: the adapter is trained, so the base is loaded alone and the trainer attaches the adapter.
    const { rt, loaded, model } = await loadCliModel(online ? withoutAdapter(args) : args);
    const modelPath = getString(args, 'model') ?? 'model';
    const maxBatch = positiveInt('max-batch', getNumber(args, 'max-batch', 8));
    const maxContext = positiveInt('max-context', getNumber(args, 'max-context', Math.min(model.cfg.maxPositions, 2048)));
    const maxN = positiveInt('max-n', getNumber(args, 'max-n', Math.min(DEFAULT_HTTP.maxN, maxBatch)));
    if (maxN > maxBatch) throw new Error(`--max-n ${maxN} is larger than --max-batch ${maxBatch}; the n choices of a request run in one batch`);
    const token = getString(args, 'api-key') ?? process.env.RL_STUDIO_API_KEY;
    const out = getString(args, 'out', join('runs', `serve-${new Date().toISOString().replace(/[:.]/g, '-')}`));
    const log = (line: string) => process.stderr.write(`${line}\n`);
    let setup: TraceTrainerSetup | null = null, trainer: OnlineTrainer | undefined;
    if (online) {
      setup = await openTraceTrainer(args, rt, model, loaded.config, log);
      trainer = new OnlineTrainer(rt, setup.trainer, setup.loss, {
        batch: positiveInt('online-batch', getNumber(args, 'online-batch', 8)), outDir: out, baseModelName: modelPath, modelCfg: loaded.config,
        checkpointEvery: positiveInt('checkpoint-every', getNumber(args, 'checkpoint-every', 1)),
        keepCheckpoints: positiveInt('keep-checkpoints', getNumber(args, 'keep-checkpoints', DEFAULT_KEEP)), train: setup.options, served: model,
      }, log);
      await trainer.mergeServed(); // without --online an --adapter comes merged (loadCliModel)
    }
    // Kernels' pipelines are built at first dispatch: build the common ones before listening.
    const w = await warmUp(rt, model, maxBatch);
    log(`kernels ready: ${w.built} pipelines built in ${(w.ms / 1000).toFixed(1)} s (a generation at 1 and ${maxBatch} rows)`);
    const s = await startServe(rt, model, loaded.tokenizer, loaded.config.eosTokenIds, {
      modelId: getString(args, 'model-id', basename(modelPath).replace(/\.bin$/, '')),
      host: getString(args, 'host', '127.0.0.1'), port: positiveInt('port', getNumber(args, 'port', 8000)), outDir: out, maxBatch, maxContext,
      http: {
        maxBodyBytes: positiveInt('max-body', getNumber(args, 'max-body', DEFAULT_HTTP.maxBodyBytes)),
        rateLimit: positiveInt('rate-limit', getNumber(args, 'rate-limit', DEFAULT_HTTP.rateLimit)),
        maxN, maxQueue: positiveInt('max-queue', getNumber(args, 'max-queue', DEFAULT_HTTP.maxQueue)),
        ...(token ? { token } : {}),
      },
      ...(trainer ? { online: trainer } : {}),
    });
    process.stderr.write(`serving "${s.deps.served.id}" at ${s.url}/v1 (batch ${maxBatch}, context ${maxContext}${token ? ', bearer token required' : ''}); traces in ${join(out, 'traces')}\n`);
    if (trainer) log(`online: one ${setup!.options.trainer} update every ${trainer.opts.batch} rewarded rollouts; metrics, adapter/ and checkpoints/ in ${out}; GET ${s.url}/v1/train/status`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    process.stderr.write('shutting down\n');
    await s.close();
    await setup?.dispose();
    model.dispose();
    return 0;
  },
};
