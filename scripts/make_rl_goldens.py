# Builds the GRPO goldens (tests/fixtures/goldens/rl_goldens.json) the CPU reference (src/rl) and
# the WGSL kernel (shaders/grpo.wgsl) are checked against: a hand-built batch of 2 prompts x G=4
# completions (prompt rows, a masked tool-output span, one truncated completion, one zero-variance
# group), its advantages under each scaling, and for each loss aggregation x KL estimator x entropy
# coefficient the loss, d loss / d logp and d loss / d entropy (torch autograd, float64) and the
# metrics as TRL's GRPOTrainer computes them; plus TRL-style gradient accumulation over 2 micro-batches.
# Run: /usr/bin/python3 scripts/make_rl_goldens.py   (Debian's python3-torch 1.13, CPU; deterministic)
# Consumed by tests/unit/reference/grpo-reference.test.ts and grpo-gpu.test.ts; the suite never needs PyTorch.
import json
import math
import os

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures', 'goldens', 'rl_goldens.json')
SEED = 20250301
G = 4
EPS_LOW, EPS_HIGH = 0.2, 0.28
BETA = 0.04
MAX_COMPLETION_LENGTH = 8
ENTROPY_COEFS = [0.0, 0.01]
MODES = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm']

# Per completion: prompt rows (mask 0), completion length, tool-output span (start, end) inside
# the completion (mask 0), truncated (hit MAX_COMPLETION_LENGTH without EOS).
SEQS = [
    dict(prompt=2, length=3, tool=None, truncated=False),
    dict(prompt=2, length=8, tool=None, truncated=True),
    dict(prompt=2, length=6, tool=None, truncated=False),
    dict(prompt=2, length=7, tool=(2, 4), truncated=False),
    dict(prompt=3, length=6, tool=None, truncated=False),
    dict(prompt=3, length=4, tool=None, truncated=False),
    dict(prompt=3, length=8, tool=(1, 3), truncated=False),
    dict(prompt=3, length=2, tool=None, truncated=False),
]
# Group 0 varied; group 1 all equal (zero std: no policy gradient from it).
REWARDS = [1.0, 0.0, 0.25, 1.0, 1.0, 1.0, 1.0, 1.0]


def advantages(rewards, scaling):
    """TRL sum_then_normalize: group mean subtracted; divided by the unbiased std (+1e-4) of the
    group or the batch, or not at all. Zero-std flags per group (torch.isclose(std, 0))."""
    r = torch.tensor(rewards, dtype=torch.float64)
    grouped = r.view(-1, G)
    mean = grouped.mean(dim=1).repeat_interleave(G)
    group_std = grouped.std(dim=1)
    std = group_std.repeat_interleave(G) if scaling == 'group' else r.std().expand_as(r)
    adv = r - mean
    if scaling != 'none':
        adv = adv / (std + 1e-4)
    zero = torch.isclose(group_std, torch.zeros_like(group_std))
    return adv, group_std, zero


def build_batch(g):
    S = len(SEQS)
    T = max(s['prompt'] + s['length'] for s in SEQS)
    logp = torch.zeros(S, T, dtype=torch.float64)
    old = torch.zeros(S, T, dtype=torch.float64)
    ref = torch.zeros(S, T, dtype=torch.float64)
    ent = torch.zeros(S, T, dtype=torch.float64)
    mask = torch.zeros(S, T, dtype=torch.float64)   # completion x tool mask, before truncation masking
    rows = []
    for i, s in enumerate(SEQS):
        n = s['prompt'] + s['length']
        rows.append(n)
        lp = -0.05 - 2.5 * torch.rand(n, generator=g, dtype=torch.float64)
        # ratios spread over [0.6, 1.5] so both clip bounds are crossed; none within 2e-3 of a bound
        ratio = 0.6 + 0.9 * torch.rand(n, generator=g, dtype=torch.float64)
        for b in (1 - EPS_LOW, 1 + EPS_HIGH):
            ratio = torch.where((ratio - b).abs() < 2e-3, ratio + 5e-3, ratio)
        logp[i, :n] = lp
        old[i, :n] = lp - torch.log(ratio)
        ref[i, :n] = lp + 0.3 * torch.randn(n, generator=g, dtype=torch.float64)
        ent[i, :n] = 0.1 + 2.4 * torch.rand(n, generator=g, dtype=torch.float64)
        mask[i, s['prompt']:n] = 1
        if s['tool']:
            a, b = s['tool']
            mask[i, s['prompt'] + a:s['prompt'] + b] = 0
    truncated = torch.tensor([s['truncated'] for s in SEQS])
    loss_mask = mask * (~truncated).unsqueeze(1).double()   # TRL mask_truncated_completions
    return dict(logp=logp, old=old, ref=ref, ent=ent, mask=mask, loss_mask=loss_mask, rows=rows, truncated=truncated)


def kl_value(kind, logp, ref):
    d = ref - logp
    if kind == 'k1':
        return -d
    if kind == 'k2':
        return 0.5 * d * d
    return torch.exp(d) - d - 1


def aggregate(per_token, mask, mode, n_seqs=None, n_tokens=None, accum_steps=1):
    """TRL's normalisers: dapo (token-mean, global token count), grpo (seq-mean-token-mean, divided
    by the accumulation steps), dr_grpo (rows x max_completion_length, divided by the steps)."""
    if mode == 'token-mean':
        return (per_token * mask).sum() / (mask.sum() if n_tokens is None else n_tokens).clamp(min=1.0)
    if mode == 'seq-mean-token-mean':
        return ((per_token * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)).mean() / accum_steps
    return (per_token * mask).sum() / (per_token.size(0) * MAX_COMPLETION_LENGTH) / accum_steps


def grpo_case(batch, adv, mode, kl, ent_coef, rows=None, old_is_logp=False, n_tokens=None, accum_steps=1):
    sl = slice(None) if rows is None else rows
    logp = batch['logp'][sl].clone().requires_grad_(True)
    ent = batch['ent'][sl].clone().requires_grad_(True)
    mask = batch['loss_mask'][sl]
    old = logp.detach() if old_is_logp else batch['old'][sl]
    A = adv[sl].unsqueeze(1)
    coef_1 = torch.exp(logp - old)
    coef_2 = torch.clamp(coef_1, 1 - EPS_LOW, 1 + EPS_HIGH)
    per_token = -torch.min(coef_1 * A, coef_2 * A)
    beta = BETA if kl else 0.0
    if kl:
        per_token_kl = kl_value(kl, logp, batch['ref'][sl])
        per_token = per_token + beta * per_token_kl
    policy_loss = aggregate(per_token, mask, mode, n_tokens=n_tokens, accum_steps=accum_steps)
    per_token = per_token - ent_coef * ent
    loss = aggregate(per_token, mask, mode, n_tokens=n_tokens, accum_steps=accum_steps)
    loss.backward()
    count = mask.sum().clamp(min=1.0)

    def masked_mean(x):
        return ((x * mask).sum() / count).item()

    low = ((coef_1 < 1 - EPS_LOW) & (A < 0)).double()
    high = ((coef_1 > 1 + EPS_HIGH) & (A > 0)).double()
    metrics = {
        'loss': loss.item(), 'policy_loss': policy_loss.item(),
        'clip_ratio/low_mean': masked_mean(low), 'clip_ratio/high_mean': masked_mean(high),
        'clip_ratio/region_mean': masked_mean(((low + high) > 0).double()),
        'entropy': masked_mean(ent.detach()),
    }
    if kl:
        metrics['kl'] = masked_mean(per_token_kl.detach())
    return dict(loss=loss.item(), dlogp=logp.grad, dentropy=ent.grad, metrics=metrics,
                tokens=mask.sum().item())


def ragged(t, rows):
    return [[float(v) for v in t[i, :n]] for i, n in enumerate(rows)]


def main():
    torch.manual_seed(SEED)
    g = torch.Generator().manual_seed(SEED)
    batch = build_batch(g)
    rows = batch['rows']
    adv_out = {}
    for scaling in ['group', 'batch', 'none']:
        adv, group_std, zero = advantages(REWARDS, scaling)
        adv_out[scaling] = {
            'advantages': adv.tolist(), 'group_std': group_std.tolist(),
            'zero_std': [int(z) for z in zero], 'frac_reward_zero_std': zero.double().mean().item(),
            'kept_when_filtered': [i for i in range(len(REWARDS)) if not zero[i // G]],
        }
    adv, _, _ = advantages(REWARDS, 'group')

    cases = []
    clip_seen = {'low': 0, 'high': 0}
    for mode in MODES:
        for kl in [None, 'k1', 'k2', 'k3']:
            for ent_coef in ENTROPY_COEFS:
                r = grpo_case(batch, adv, mode, kl, ent_coef)
                clip_seen['low'] += r['metrics']['clip_ratio/low_mean'] > 0
                clip_seen['high'] += r['metrics']['clip_ratio/high_mean'] > 0
                cases.append({'aggregation': mode, 'kl': kl, 'beta': BETA if kl else 0.0, 'entropy_coef': ent_coef,
                              'old_is_logp': False, 'loss': r['loss'], 'metrics': r['metrics'],
                              'dlogp': ragged(r['dlogp'], rows), 'dentropy': ragged(r['dentropy'], rows)})
    print('cases clipping low / high:', clip_seen)
    assert clip_seen['low'] and clip_seen['high'], 'the batch must clip on both sides: change the seed'
    # mu = 1: old log probs are the current ones, detached (ratio 1, no clipping)
    r = grpo_case(batch, adv, 'token-mean', 'k3', 0.01, old_is_logp=True)
    cases.append({'aggregation': 'token-mean', 'kl': 'k3', 'beta': BETA, 'entropy_coef': 0.01, 'old_is_logp': True,
                  'loss': r['loss'], 'metrics': r['metrics'],
                  'dlogp': ragged(r['dlogp'], rows), 'dentropy': ragged(r['dentropy'], rows)})

    # Gradient accumulation as TRL runs it: 2 micro-batches of 4 completions, losses and grads summed.
    micro = []
    total_tokens = batch['loss_mask'].sum()
    for mode in MODES:
        loss = 0.0
        dlogp = torch.zeros_like(batch['logp'])
        dent = torch.zeros_like(batch['ent'])
        for part in (slice(0, 4), slice(4, 8)):
            r = grpo_case(batch, adv, mode, 'k3', 0.01, rows=part, n_tokens=total_tokens, accum_steps=2)
            loss += r['loss']
            dlogp[part] = r['dlogp']
            dent[part] = r['dentropy']
        micro.append({'aggregation': mode, 'kl': 'k3', 'beta': BETA, 'entropy_coef': 0.01, 'micro_batches': [[0, 4], [4, 8]],
                      'loss': loss, 'dlogp': ragged(dlogp, rows), 'dentropy': ragged(dent, rows)})

    out = {
        'magic': 'rlstudio-rl-goldens', 'version': 1, 'regenerate': '/usr/bin/python3 scripts/make_rl_goldens.py',
        'torch': torch.__version__, 'seed': SEED, 'dtype': 'float64',
        'config': {'group_size': G, 'epsilon_low': EPS_LOW, 'epsilon_high': EPS_HIGH, 'beta': BETA,
                   'max_completion_length': MAX_COMPLETION_LENGTH, 'advantage_scaling_in_cases': 'group'},
        'batch': {
            'rewards': REWARDS,
            'prompt_rows': [s['prompt'] for s in SEQS],
            'truncated': [bool(s['truncated']) for s in SEQS],
            'logp': ragged(batch['logp'], rows), 'old_logp': ragged(batch['old'], rows),
            'ref_logp': ragged(batch['ref'], rows), 'entropy': ragged(batch['ent'], rows),
            'mask': ragged(batch['mask'], rows), 'loss_mask': ragged(batch['loss_mask'], rows),
        },
        'advantages': adv_out,
        'cases': cases,
        'micro': micro,
    }
    with open(OUT, 'w') as f:
        json.dump(out, f, separators=(',', ':'))
    print(f'wrote {OUT}: {len(cases)} cases, {len(micro)} micro-batch cases; '
          f'advantages {[round(a, 4) for a in adv.tolist()]}; tokens {batch["loss_mask"].sum().item():.0f}')
    assert math.isfinite(sum(c['loss'] for c in cases))


if __name__ == '__main__':
    main()
