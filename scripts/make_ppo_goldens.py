# Builds the RLOO / REINFORCE++ / PPO goldens (tests/fixtures/goldens/ppo_goldens.json) that the CPU
# references (src/rl/advantages.ts, src/reference/ppo.ts, src/reference/grpo_loss.ts with per-row
# advantages) are checked against: advantages of a 2 x G=4 reward batch under each estimator, and
# for multi-turn episodes (prompt, assistant turns, tool output between them) the per-turn rewards
# placed at turn ends, GAE advantages and returns for two (gamma, lambda) pairs, the clipped value
# loss and d loss / d values, the PPO policy loss and d loss / d logp, and a value head (linear on a
# hidden state) trained by that value loss: d loss / d h, w, b (torch autograd, float64).
# Run: /usr/bin/python3 scripts/make_ppo_goldens.py   (Debian's python3-torch, CPU; deterministic)
# Consumed by tests/unit/reference/ppo-reference.test.ts and value-head.test.ts; the suite never needs PyTorch.
import json
import os

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures', 'goldens', 'ppo_goldens.json')
SEED = 20251124
G = 4
REWARDS = [1.0, 0.0, 0.25, 1.0, 1.0, 1.0, 1.0, 0.5]
EPS_LOW, EPS_HIGH = 0.2, 0.28
VALUE_CLIP = 0.2
GAE_PARAMS = [(1.0, 1.0), (0.99, 0.95)]

# Each episode: segments of (mask, rows): mask 0 = prompt or tool output, 1 = an assistant turn.
EPISODES = [
    dict(segments=[(0, 3), (1, 4)], turn_rewards=[1.0]),
    dict(segments=[(0, 2), (1, 3), (0, 2), (1, 2)], turn_rewards=[-0.1, 1.0]),
    dict(segments=[(0, 2), (1, 2), (0, 3), (1, 3), (0, 1), (1, 2)], turn_rewards=[0.2, -0.1, 0.5]),
    dict(segments=[(0, 4), (1, 5)], turn_rewards=[0.0]),
]


def advantages(rewards, estimator):
    r = torch.tensor(rewards, dtype=torch.float64)
    grouped = r.view(-1, G)
    if estimator == 'rloo':
        # RLOO (Ahmadian et al. 2024; TRL RLOOTrainer): baseline = mean of the other G - 1 rewards
        baseline = (grouped.sum(dim=1, keepdim=True) - grouped) / (G - 1)
        return (grouped - baseline).flatten()
    if estimator == 'reinforce_pp':
        return (r - r.mean()) / (r.std() + 1e-4)
    # reinforce_pp_baseline: group mean subtracted, then normalised over the batch
    c = (grouped - grouped.mean(dim=1, keepdim=True)).flatten()
    return (c - c.mean()) / (c.std() + 1e-4)


def build_rows():
    mask, offsets, rewards = [], [0], []
    for ep in EPISODES:
        m = []
        for flag, n in ep['segments']:
            m += [float(flag)] * n
        r = [0.0] * len(m)
        ends = [i for i in range(len(m)) if m[i] == 1 and (i + 1 == len(m) or m[i + 1] == 0)]
        assert len(ends) == len(ep['turn_rewards'])
        for i, v in zip(ends, ep['turn_rewards']):
            r[i] = v
        mask += m
        rewards += r
        offsets.append(len(mask))
    return torch.tensor(mask, dtype=torch.float64), offsets, torch.tensor(rewards, dtype=torch.float64)


def gae(rewards, values, mask, offsets, gamma, lam):
    """GAE over each sequence's mask = 1 rows only (masked rows skipped), as verl's multi-turn
    variant chains the response tokens; V and A after the last trained row are 0."""
    adv = torch.zeros_like(rewards)
    for s in range(len(offsets) - 1):
        next_v, next_a = 0.0, 0.0
        for n in range(offsets[s + 1] - 1, offsets[s] - 1, -1):
            if mask[n] == 0:
                continue
            delta = rewards[n] + gamma * next_v - values[n]
            a = delta + gamma * lam * next_a
            adv[n] = a
            next_v, next_a = values[n], a
    return adv, (adv + values) * mask


def value_loss(values, old_values, returns, mask):
    v = values.clone().requires_grad_(True)
    v_clip = old_values + torch.clamp(v - old_values, -VALUE_CLIP, VALUE_CLIP)
    a = (v - returns) ** 2
    b = (v_clip - returns) ** 2
    per_token = 0.5 * torch.max(a, b)
    loss = (per_token * mask).sum() / mask.sum()
    loss.backward()
    clipfrac = (((b > a).double() * mask).sum() / mask.sum()).item()
    return loss.item(), v.grad, clipfrac


def policy_loss(logp, old_logp, adv, mask):
    lp = logp.clone().requires_grad_(True)
    ratio = torch.exp(lp - old_logp)
    clipped = torch.clamp(ratio, 1 - EPS_LOW, 1 + EPS_HIGH)
    per_token = -torch.min(ratio * adv, clipped * adv)
    loss = (per_token * mask).sum() / mask.sum()
    loss.backward()
    return loss.item(), lp.grad


def main():
    torch.manual_seed(SEED)
    g = torch.Generator().manual_seed(SEED)
    adv_out = {e: advantages(REWARDS, e).tolist() for e in ['rloo', 'reinforce_pp', 'reinforce_pp_baseline']}
    mask, offsets, rewards = build_rows()
    N = mask.numel()
    values = 0.5 * torch.randn(N, generator=g, dtype=torch.float64)
    # old values: half near (inside the clip range), half far (clipped)
    shift = torch.where(torch.rand(N, generator=g, dtype=torch.float64) < 0.5,
                        0.05 + 0.1 * torch.rand(N, generator=g, dtype=torch.float64),
                        0.35 + 0.3 * torch.rand(N, generator=g, dtype=torch.float64))
    sign = torch.where(torch.rand(N, generator=g, dtype=torch.float64) < 0.5, -1.0, 1.0).double()
    old_values = values + sign * shift
    logp = -0.05 - 2.5 * torch.rand(N, generator=g, dtype=torch.float64)
    ratio = 0.6 + 0.9 * torch.rand(N, generator=g, dtype=torch.float64)
    for bound in (1 - EPS_LOW, 1 + EPS_HIGH):
        ratio = torch.where((ratio - bound).abs() < 2e-3, ratio + 5e-3, ratio)
    old_logp = logp - torch.log(ratio)

    cases = []
    for gamma, lam in GAE_PARAMS:
        adv, ret = gae(rewards, values, mask, offsets, gamma, lam)
        vloss, dvalues, clipfrac = value_loss(values, old_values, ret, mask)
        ploss, dlogp = policy_loss(logp, old_logp, adv, mask)
        cases.append({'gamma': gamma, 'lambda': lam, 'advantages': adv.tolist(), 'returns': ret.tolist(),
                      'value_loss': vloss, 'dvalues': dvalues.tolist(), 'vf_clipfrac': clipfrac,
                      'policy_loss': ploss, 'dlogp': dlogp.tolist()})
        print(f'gamma {gamma} lambda {lam}: value loss {vloss:.6f} (clipfrac {clipfrac:.3f}), policy loss {ploss:.6f}')
    assert 0 < cases[0]['vf_clipfrac'] < 1, 'the batch must clip some values and not others: change the seed'

    # Value head: v = h w + b on a [N, C] hidden state, trained by the clipped value loss of case 0.
    C = 8
    h = torch.randn(N, C, generator=g, dtype=torch.float64).requires_grad_(True)
    w = (0.3 * torch.randn(C, generator=g, dtype=torch.float64)).requires_grad_(True)
    bias = torch.tensor([0.1], dtype=torch.float64, requires_grad=True)
    v = h @ w + bias
    head_old = v.detach() + sign * shift
    ret = torch.tensor(cases[0]['returns'], dtype=torch.float64)
    v_clip = head_old + torch.clamp(v - head_old, -VALUE_CLIP, VALUE_CLIP)
    head_loss = ((0.5 * torch.max((v - ret) ** 2, (v_clip - ret) ** 2)) * mask).sum() / mask.sum()
    head_loss.backward()
    value_head = {'C': C, 'h': h.detach().flatten().tolist(), 'w': w.detach().tolist(), 'b': bias.item(),
                  'old_values': head_old.tolist(), 'returns': ret.tolist(), 'values': v.detach().tolist(),
                  'loss': head_loss.item(), 'dh': h.grad.flatten().tolist(), 'dw': w.grad.tolist(), 'db': bias.grad.item()}
    print(f'value head: loss {head_loss.item():.6f} |dw| {w.grad.norm().item():.4f} db {bias.grad.item():.6f}')

    out = {
        'magic': 'rlstudio-ppo-goldens', 'version': 1, 'regenerate': '/usr/bin/python3 scripts/make_ppo_goldens.py',
        'torch': torch.__version__, 'seed': SEED, 'dtype': 'float64',
        'config': {'group_size': G, 'epsilon_low': EPS_LOW, 'epsilon_high': EPS_HIGH, 'value_clip': VALUE_CLIP},
        'rewards': REWARDS,
        'advantages': adv_out,
        'batch': {
            'mask': mask.tolist(), 'offsets': offsets, 'turn_rewards': [e['turn_rewards'] for e in EPISODES],
            'token_rewards': rewards.tolist(), 'values': values.tolist(), 'old_values': old_values.tolist(),
            'logp': logp.tolist(), 'old_logp': old_logp.tolist(),
        },
        'cases': cases,
        'value_head': value_head,
    }
    with open(OUT, 'w') as f:
        json.dump(out, f, separators=(',', ':'))
    print(f'wrote {OUT}: {N} rows, {len(cases)} GAE cases; advantages {json.dumps({k: [round(x, 4) for x in v] for k, v in adv_out.items()})}')


if __name__ == '__main__':
    main()
