// A PolicyStepper that returns scripted token ids where the GPU would sample (one queue per
// slot): the only double in the agent-loop tests that drive real tools and environments
// (env-rollout.test.ts, export-trl-rewards.test.ts).
import type { PolicyStepper } from '../../src/agents/loop';
import type { StepSample } from '../../src/model/gpu/session';

export class ScriptedStepper implements PolicyStepper {
  constructor(readonly B: number, private readonly scripts: number[][]) {}
  async step(newTokens: number[][]): Promise<StepSample> {
    const ids = new Int32Array(this.B).fill(-1), logprobs = new Float32Array(this.B).fill(NaN);
    newTokens.forEach((toks, s) => {
      if (!toks.length) return;
      const id = this.scripts[s].shift();
      if (id === undefined) throw new Error(`slot ${s} ran out of script`);
      ids[s] = id;
      logprobs[s] = -0.5;
    });
    return { ids, logprobs };
  }
  reset(): void {}
}
