// The KL reference policy of an RL run. Without a starting adapter and in LoRA mode it is the
// base model (the adapter switched off). When the policy starts from an SFT adapter
// (model.adapter), or trains every weight (lora.mode full), switching the adapter off would give
// the wrong reference (the bare base) or none at all (the policy itself, KL always 0): there the
// reference is a frozen GPU copy of the trainable tensors taken at the start, swapped in for the
// reference pass and swapped back after. Tested by tests/unit/rl/rl-start-adapter.test.ts (SFT
// adapter) and rl-full-mode.test.ts (full mode).
import type { GpuRuntime } from '../gpu/runtime';
import type { OptimParam } from '../gpu/kernels/adamw';
import type { Trainer } from '../train/trainer';

export interface ReferencePolicy {
  /** 'base': the adapter switched off; 'frozen': the trainable tensors as they were at the start. */
  readonly kind: 'base' | 'frozen';
  /** GPU bytes the reference holds besides the policy (the frozen copy; 0 for 'base'). */
  readonly bytes: number;
  /** [S] log-probs [T-1] of each sequence under the reference policy. */
  logprobs(seqs: number[][], temperature: number): Promise<Float32Array[]>;
  /** The same left on the GPU in Trainer.logprobsOnGpu's layout, `lossRows` only when given (the caller releases it). */
  logprobsOnGpu(seqs: number[][], temperature: number, lossRows?: ArrayLike<number>[] | null): Promise<GPUBuffer>;
  dispose(): void;
}

/** The base model: the trainer's LoRA adapter switched off (LoRA mode, fresh adapter). */
export function baseReference(trainer: Trainer): ReferencePolicy {
  if (trainer.trainable.mode !== 'lora') throw new Error('baseReference: a full-mode trainer has no adapter to switch off; use frozenReference');
  return {
    kind: 'base', bytes: 0,
    async logprobs(seqs, temperature) { return (await trainer.logprobs(seqs, false, temperature)).logprobs; },
    logprobsOnGpu: (seqs, temperature, lossRows) => trainer.logprobsOnGpu(seqs, false, temperature, 'reference log-probs', lossRows),
    dispose() {},
  };
}

/** Bytes of a frozen copy of what `trainer` trains (for the refusal message and the log). */
export function frozenBytes(trainer: Trainer): number {
  return trainer.trainable.params.optimParams().reduce((n, p) => n + p.size * 4, 0);
}

/**
 * A frozen copy of the trainer's trainable tensors as they are now. The reference pass swaps the
 * frozen tensors with the live ones (tensor by tensor through one pooled scratch buffer the size
 * of the largest tensor; copies run in order within the step's encoder), runs a log-prob pass
 * with the adapter on, then swaps back: the policy is unchanged afterwards, bit for bit. Extra
 * memory: the copy, plus the largest tensor during the pass.
 */
export function frozenReference(rt: GpuRuntime, trainer: Trainer): ReferencePolicy {
  const params: OptimParam[] = trainer.trainable.params.optimParams();
  const frozen = params.map((p) => rt.storage(p.size * 4, `${p.name} reference copy`));
  params.forEach((p, i) => rt.copy(p.param, 0, frozen[i], 0, p.size * 4));
  rt.submit();
  const bytes = params.reduce((n, p) => n + p.size * 4, 0);
  const largest = params.reduce((n, p) => Math.max(n, p.size * 4), 4);
  const swap = (scratch: GPUBuffer) => {
    params.forEach((p, i) => {
      const n = p.size * 4;
      rt.copy(p.param, 0, scratch, 0, n);
      rt.copy(frozen[i], 0, p.param, 0, n);
      rt.copy(scratch, 0, frozen[i], 0, n);
    });
    rt.submit();
  };
  const swapped = async <T>(run: () => Promise<T>): Promise<T> => {
    const scratch = rt.storage(largest, 'reference swap scratch');
    swap(scratch);
    try {
      return await run();
    } finally {
      swap(scratch);
      rt.release(scratch);
    }
  };
  return {
    kind: 'frozen', bytes,
    logprobs: (seqs, temperature) => swapped(async () => (await trainer.logprobs(seqs, true, temperature)).logprobs),
    logprobsOnGpu: (seqs, temperature, lossRows) => swapped(() => trainer.logprobsOnGpu(seqs, true, temperature, 'reference log-probs', lossRows)),
    dispose() { rt.release(...frozen); },
  };
}
