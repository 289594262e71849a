// One held-out evaluation from a run config, as `npm run cli -- eval` and the engine worker's
// `evaluate` request run it: the samples' temperature rule, the eval context (the config's env
// with its services, chat template, no hooks) and evaluate() (src/rl/eval.ts) on any decoder
// engine. Exercised by tests/unit/cli/eval-cli.test.ts and tests/e2e/studio-eval.spec.ts.
import { templateChoice } from '../agents/chat-template';
import type { Task } from '../data/schemas';
import type { EnvServices } from '../envs';
import type { DecoderEngine } from '../model/engine';
import type { Tokenizer } from '../model/tokenizer';
import type { RlConfig } from './config-validate';
import { buildEnvironment } from './env-factory';
import { evaluate, type EvalResult } from './eval';
import { composeHooks } from './hooks';

/** k samples per task: greedy at eval.temperature 0 when k = 1; k > 1 samples at eval.temperature, or 1 when that is 0. */
export function evalTemperature(cfg: RlConfig, k: number): number {
  if (!(Number.isInteger(k) && k >= 1)) throw new Error(`samples must be an integer >= 1, got ${k}`);
  return k > 1 && cfg.eval.temperature === 0 ? 1 : cfg.eval.temperature;
}

/** Scores one policy (an engine: base, base + adapter, or an ONNX export) on `tasks`. */
export function evaluatePolicy(cfg: RlConfig, engine: DecoderEngine, tokenizer: Tokenizer, services: EnvServices, tasks: Task[], k: number,
  onProgress?: (done: number, total: number) => void): Promise<EvalResult> {
  const ctx = {
    cfg, engine, tokenizer, env: buildEnvironment(cfg, services),
    chat: templateChoice(cfg.model.template), hooks: composeHooks(),
  };
  return evaluate(ctx, tasks, k, evalTemperature(cfg, k), onProgress);
}

/** The figures of one evaluation, base and (when given) a run's adapter on the same tasks; a run's eval.json. */
export interface EvalReport {
  /** The task file (a shipped datasets/ file or the name of a dropped one) and the split it stands for. */
  dataset: string;
  split: 'eval' | 'train';
  tasks: number;
  samples: number;
  temperature: number;
  /** ISO time the evaluation ended. */
  at: string;
  base: Record<string, number>;
  adapter: { runId: string; metrics: Record<string, number> } | null;
}
