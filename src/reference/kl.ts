// Per-token KL estimators between the policy and the reference policy (Schulman's k1, k2, k3),
// their values and derivatives with respect to the policy log probability. The CPU twin of the
// kl_term function in shaders/grpo.wgsl. Exercised by tests/unit/reference/grpo-reference.test.ts.

/** k1 = logp - ref; k2 = 0.5 (logp - ref)^2; k3 = exp(ref - logp) - (ref - logp) - 1 (TRL, verl default). */
export type KlEstimator = 'k1' | 'k2' | 'k3';

export const KL_ESTIMATORS: readonly KlEstimator[] = ['k1', 'k2', 'k3'];

/** The index the GPU kernel takes for each estimator (uniform `kl_kind`). */
export const KL_KIND: Record<KlEstimator, number> = { k1: 0, k2: 1, k3: 2 };

/** The estimator's value at one token. */
export function kl_value(kind: KlEstimator, logp: number, ref: number): number {
  const d = ref - logp;
  switch (kind) {
    case 'k1': return logp - ref;
    case 'k2': return 0.5 * d * d;
    case 'k3': return Math.exp(d) - d - 1;
  }
}

/** d kl_value / d logp at one token (ref is a constant: the reference policy is not trained). */
export function kl_grad(kind: KlEstimator, logp: number, ref: number): number {
  const d = ref - logp;
  switch (kind) {
    case 'k1': return 1;
    case 'k2': return -d;
    case 'k3': return 1 - Math.exp(d);
  }
}
