// Builds what an RL step needs (src/rl/grpo-trainer.ts GrpoContext) from the run config and a
// loaded model, the same way in the CLI (src/rl/node-run.ts) and the engine worker (src/worker/),
// so both produce the same metrics for the same config and seed: the Trainer (fresh adapter or
// every weight), the environment, the chat template and the GPU GRPO loss.
// Exercised by tests/unit/rl-grpo.test.ts and tests/e2e/run-worker.spec.ts.
import { PLAIN_TEMPLATE } from '../agents/chat-template';
import type { EnvServices } from '../envs';
import { GrpoLoss } from '../gpu/kernels/grpo';
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuModel } from '../model/gpu/model';
import type { Tokenizer } from '../model/tokenizer';
import type { RlConfig } from '../rl/config';
import { buildEnvironment } from '../rl/env-factory';
import type { GrpoContext } from '../rl/grpo-trainer';
import { composeHooks, type RlHooks } from '../rl/hooks';
import { Trainer } from '../train/trainer';
import { rlTrainerConfigOf } from './trainer-settings';

export async function createRlContext(cfg: RlConfig, m: { rt: GpuRuntime; model: GpuModel; tokenizer: Tokenizer }, services: EnvServices, hooks?: RlHooks): Promise<GrpoContext> {
  const trainer = await Trainer.create(m.rt, m.model, rlTrainerConfigOf(cfg));
  try {
    return {
      cfg, rt: m.rt, model: m.model, tokenizer: m.tokenizer, env: buildEnvironment(cfg, services),
      template: cfg.model.template === 'plain' ? PLAIN_TEMPLATE : undefined, hooks: composeHooks(hooks),
      trainer, loss: await GrpoLoss.create(m.rt),
    };
  } catch (e) {
    await trainer.dispose();
    throw e;
  }
}
