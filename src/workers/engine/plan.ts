// The `plan-run` request: the GPU memory plan of a run before Start, from the config and the model's
// config.json only (nothing is loaded): planTraining's figures for its trainer, quant, batch, sequence
// length and LoRA / full mode, and whether its largest buffer fits the device's buffer limits.
// Pure (the worker passes the model's config and its device's limits); tested by
// tests/unit/workers/plan-run.test.ts and, through the Config panel, tests/e2e/studio-config-plan.spec.ts.
import type { FileSource } from '../../model/io/source';
import type { ModelConfig } from '../../model/types';
import { parseConfig } from '../../rl/config-validate';
import type { RunConfig } from '../../run/config';
import { planOptionsOf } from '../../run/run-plan';
import { inspectModel } from './inspect';
import { planTraining, type MemoryPlan, type PlanKernels } from '../../train/memory-plan';

/** The device limits a single buffer must respect (GPUDevice.limits). */
export interface BufferLimits {
  maxBufferSize: number;
  maxStorageBufferBindingSize: number;
}

/** The plan of one run as the Config panel shows it. */
export interface RunPlan {
  plan: MemoryPlan;
  /** Sequences per update and tokens per sequence the plan assumes. */
  rows: number;
  seqLen: number;
  /** How the shape was chosen (the config fields it comes from). */
  shape: string;
  limits: BufferLimits;
  /** null when every buffer fits; else "does not fit: X > Y, ..." with what to lower. */
  problem: string | null;
}

const MIB = 2 ** 20;
const mib = (n: number): string => `${(n / MIB).toFixed(2)} MiB`;

/** What to lower when a buffer of this plan row is too large. */
function adviceFor(row: string, cfg: RunConfig): string {
  if (row.startsWith('weights') || row.startsWith('load')) {
    return cfg.model.quant === 'none' && cfg.lora.mode === 'lora' ? 'set model.quant: nf4 or pick a smaller model' : 'pick a smaller model';
  }
  return cfg.trainer === 'sft' ? 'lower rollout.batch_size, grpo.micro_batch_size or data.max_length'
    : 'lower rollout.batch_size, grpo.micro_batch_size or rollout.max_tokens';
}

/** The run's plan against the device's buffer limits, for the kernels the adapter runs (default: a CPU adapter's). */
export function planRun(mc: ModelConfig, cfg: RunConfig, limits: BufferLimits, kernels: PlanKernels = {}): RunPlan {
  const { options, shape } = planOptionsOf(mc, cfg);
  const plan = planTraining(mc, { ...options, ...kernels });
  const big = plan.largestBuffer;
  const [limitName, limit] = limits.maxStorageBufferBindingSize <= limits.maxBufferSize
    ? ['maxStorageBufferBindingSize', limits.maxStorageBufferBindingSize] : ['maxBufferSize', limits.maxBufferSize];
  const problem = big.bytes > limit
    ? `does not fit: the largest buffer (${big.row}) needs ${mib(big.bytes)} > this device's ${limitName} ${mib(limit)}; ${adviceFor(big.row, cfg)}`
    : null;
  return { plan, rows: options.batchSize, seqLen: options.seqLen, shape, limits, problem };
}

/** The worker's answer: the model's config.json read (no weights), the YAML parsed as Start parses it. */
export async function planRequest(source: FileSource, configYaml: string, limits: BufferLimits, kernels: PlanKernels = {}): Promise<RunPlan> {
  const cfg = parseConfig(configYaml, 'config.yaml');
  const report = await inspectModel(source);
  if (!report.config) {
    const p = report.problems[0];
    throw new Error(`${report.source}: ${p ? `${p.file}: ${p.message}` : 'no model config found'}; fix the model folder in the Models panel`);
  }
  return planRun(report.config, cfg, limits, kernels);
}
