// Builds what an RL step needs (src/rl/grpo-trainer.ts GrpoContext) from the run config and a
// loaded model, the same way in the CLI (src/run/rl-node-run.ts) and the engine worker (src/workers/engine/),
// so both produce the same metrics for the same config and seed: the Trainer (fresh adapter or
// every weight), the environment, the chat template and the GPU GRPO loss.
// Exercised by tests/unit/rl/rl-grpo.test.ts and tests/e2e/run-worker.spec.ts.
import { PLAIN_TEMPLATE } from '../agents/chat-template';
import { GrpoLoss } from '../gpu/kernels/grpo';
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuModel } from '../model/gpu/model';
import type { Tokenizer } from '../model/tokenizer';
import type { RlConfig } from '../rl/config-validate';
import type { FileSource } from '../model/io/source';
import { readStartPolicy, referenceFor, withStartAdapter } from '../rl/policy-setup';
import { buildEnvironment, type RlEnvServices } from '../rl/env-factory';
import type { GrpoContext } from '../rl/grpo-trainer';
import { composeHooks, type RlHooks } from '../rl/hooks';
import { Trainer } from '../train/trainer';
import { rlTrainerConfigOf } from './trainer-settings';

export interface RlContextOptions {
  /** Opens model.adapter's folder (Node: a NodeDirSource); without it a config naming an adapter is refused. */
  openDir?: (dir: string) => FileSource;
  log?: (s: string) => void;
}

/**
 * The step context: the Trainer starts from model.adapter when set (the lora section then comes
 * from its adapter_config.json: ctx.cfg is that reconciled config), and the KL reference is built
 * here, before any checkpoint is restored, so a resumed run keeps the starting policy as reference.
 */
export async function createRlContext(cfg: RlConfig, m: { rt: GpuRuntime; model: GpuModel; tokenizer: Tokenizer }, services: RlEnvServices, hooks?: RlHooks, opts: RlContextOptions = {}): Promise<GrpoContext> {
  const log = opts.log ?? (() => {});
  if (cfg.model.adapter !== null && !opts.openDir) {
    throw new Error(`model.adapter (${cfg.model.adapter}): starting from an adapter is not available here yet; start the run from the CLI (train --adapter) or remove model.adapter`);
  }
  const policy = await readStartPolicy(cfg, m.model.cfg, opts.openDir ?? ((dir) => { throw new Error(`cannot open ${dir}`); }));
  const trainer = await Trainer.create(m.rt, m.model, withStartAdapter(rlTrainerConfigOf(policy.cfg), policy));
  let reference: GrpoContext['reference'];
  try {
    reference = referenceFor(m.rt, trainer, policy.cfg, log);
    return {
      cfg: policy.cfg, rt: m.rt, model: m.model, tokenizer: m.tokenizer, env: buildEnvironment(policy.cfg, services),
      template: policy.cfg.model.template === 'plain' ? PLAIN_TEMPLATE : undefined, hooks: composeHooks(hooks),
      trainer, loss: await GrpoLoss.create(m.rt), reference,
    };
  } catch (e) {
    reference?.dispose();
    await trainer.dispose();
    throw e;
  }
}
