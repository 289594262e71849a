# Builds the PyTorch goldens the CPU reference and the WGSL engine are checked against: a tiny
# random Qwen2 model (Hugging Face folder), a PEFT LoRA adapter, and logits / log probabilities /
# entropies for three sequences with f32 and NF4 weights, adapter off and on (goldens.json); and
# training goldens (grads.json): masked cross-entropy, LoRA and full-mode gradients, 3 AdamW steps.
# Run: /usr/bin/python3 scripts/make_goldens.py   (Debian's python3-torch 1.13, CPU; deterministic)
# Consumed by tests/unit/reference/reference-model.test.ts and reference-bwd-goldens.test.ts; the test
# suite itself never needs PyTorch.
import json
import math
import os
import struct

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures', 'goldens')
SEED = 20240611

# Tiny Qwen2: every linear weight has a multiple of 64 elements, so NF4 blocks never straddle rows
# awkwardly and the last block is full.
V, C, L, NH, KVH, HS, I = 128, 64, 2, 4, 2, 16, 160
THETA, EPS = 1_000_000.0, 1e-6
R, ALPHA = 4, 8
SEQ_LENGTHS = [5, 9, 16]
GREEDY_NEW = 10
PROJ = ['q', 'k', 'v', 'o', 'gate', 'up', 'down']

# The 16 NF4 levels (QLoRA, Dettmers et al. 2023; the table bitsandbytes uses).
NF4_LEVELS = [
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
]


def proj_name(layer, p):
    kind = 'mlp' if p in ('gate', 'up', 'down') else 'self_attn'
    return f'model.layers.{layer}.{kind}.{p}_proj'


def proj_shape(p):
    return {
        'q': (NH * HS, C), 'k': (KVH * HS, C), 'v': (KVH * HS, C), 'o': (C, NH * HS),
        'gate': (I, C), 'up': (I, C), 'down': (C, I),
    }[p]


def build_weights(g):
    """Random weights scaled so logits spread over a few units (entropies well below log V)."""
    w = {'model.embed_tokens.weight': torch.randn(V, C, generator=g) * 0.5}
    for l in range(L):
        w[f'model.layers.{l}.input_layernorm.weight'] = 1 + 0.1 * torch.randn(C, generator=g)
        w[f'model.layers.{l}.post_attention_layernorm.weight'] = 1 + 0.1 * torch.randn(C, generator=g)
        for p in PROJ:
            out_f, in_f = proj_shape(p)
            # o and down write into the residual stream: a gain of 3 keeps the tied embedding from
            # dominating (otherwise the model only copies its last token).
            gain = 3.0 if p in ('o', 'down') else 1.0
            w[proj_name(l, p) + '.weight'] = torch.randn(out_f, in_f, generator=g) * gain / math.sqrt(in_f)
            if p in ('q', 'k', 'v'):
                w[proj_name(l, p) + '.bias'] = 0.1 * torch.randn(out_f, generator=g)
    w['model.norm.weight'] = 1 + 0.1 * torch.randn(C, generator=g)
    return w


def build_lora(g):
    """PEFT layout: A [r, in] (kaiming-uniform-like), B [out, r] non-zero so the adapter matters."""
    a = {}
    for l in range(L):
        for p in PROJ:
            out_f, in_f = proj_shape(p)
            bound = 1 / math.sqrt(in_f)
            a[(l, p)] = ((torch.rand(R, in_f, generator=g) * 2 - 1) * bound * math.sqrt(3),
                         torch.randn(out_f, R, generator=g) * 0.2)
    return a


def nf4_roundtrip(t, block=64):
    """Quantise to NF4 and back as bitsandbytes does without double quantisation: per block of 64
    consecutive row-major elements, scale = absmax; x * (1 / absmax) in f32 is compared with the
    15 f32 midpoints of adjacent levels (strict >, so a tie goes to the lower level); the value
    comes back as level * absmax in f32."""
    flat = t.reshape(-1).to(torch.float32)
    assert flat.numel() % block == 0
    blocks = flat.reshape(-1, block)
    absmax = blocks.abs().max(dim=1, keepdim=True).values
    inv = torch.where(absmax > 0, 1.0 / absmax, torch.zeros_like(absmax))
    normed = blocks * inv
    levels = torch.tensor(NF4_LEVELS, dtype=torch.float32)
    mids = torch.tensor([(a + b) / 2 for a, b in zip(NF4_LEVELS, NF4_LEVELS[1:])], dtype=torch.float32)
    idx = (normed.unsqueeze(-1) > mids).sum(dim=-1)
    nearest = (normed.unsqueeze(-1) - levels).abs().argmin(dim=-1)
    assert int((idx != nearest).sum()) == 0, 'a value sits on an NF4 midpoint: change the seed'
    deq = levels[idx] * absmax
    return deq.reshape(t.shape)


def rmsnorm(x, w):
    var = x.pow(2).mean(-1, keepdim=True)
    return w * (x * torch.rsqrt(var + EPS))


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def rope_cos_sin(T, dtype):
    inv_freq = 1.0 / (THETA ** (torch.arange(0, HS, 2).float() / HS))
    freqs = torch.outer(torch.arange(T).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def forward(w, lora, ids, dtype):
    """Qwen2ForCausalLM forward (HF eager attention), one sequence, logits [T, V]."""
    W = {k: v.to(dtype) for k, v in w.items()}
    T = len(ids)
    scale = ALPHA / R

    def linear(x, l, p):
        y = x @ W[proj_name(l, p) + '.weight'].T
        bias = W.get(proj_name(l, p) + '.bias')
        if bias is not None:
            y = y + bias
        if lora is not None:
            A, B = lora[(l, p)]
            y = y + (x @ A.to(dtype).T) @ B.to(dtype).T * scale
        return y

    cos, sin = rope_cos_sin(T, dtype)
    mask = torch.full((T, T), float('-inf'), dtype=dtype).triu(1)
    x = W['model.embed_tokens.weight'][torch.tensor(ids)]
    for l in range(L):
        h = rmsnorm(x, W[f'model.layers.{l}.input_layernorm.weight'])
        q = linear(h, l, 'q').view(T, NH, HS).transpose(0, 1)
        k = linear(h, l, 'k').view(T, KVH, HS).transpose(0, 1)
        v = linear(h, l, 'v').view(T, KVH, HS).transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(NH // KVH, dim=0)
        v = v.repeat_interleave(NH // KVH, dim=0)
        att = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(HS) + mask, dim=-1) @ v  # [NH, T, HS]
        x = x + linear(att.transpose(0, 1).reshape(T, NH * HS), l, 'o')
        h = rmsnorm(x, W[f'model.layers.{l}.post_attention_layernorm.weight'])
        x = x + linear(torch.nn.functional.silu(linear(h, l, 'gate')) * linear(h, l, 'up'), l, 'down')
    x = rmsnorm(x, W['model.norm.weight'])
    return x @ W['model.embed_tokens.weight'].T  # tied LM head


def logprobs_entropy(logits, ids):
    lp = torch.log_softmax(logits[:-1], dim=-1)
    picked = lp.gather(1, torch.tensor(ids[1:]).unsqueeze(1)).squeeze(1)
    entropy = -(lp.exp() * lp).sum(-1)
    return picked, entropy


def greedy(w, prompt, n):
    """Argmax decoding; also returns the smallest top-1 / top-2 logit gap (ties would be fragile)."""
    ids, gap = list(prompt), float('inf')
    for _ in range(n):
        last = forward(w, None, ids, torch.float32)[-1]
        top = last.topk(2).values
        gap = min(gap, float(top[0] - top[1]))
        ids.append(int(last.argmax()))
    return ids[len(prompt):], gap


def write_safetensors(path, tensors):
    """safetensors: u64 LE header length, JSON header (padded to 8 bytes), raw LE f32 data."""
    header = {'__metadata__': {'format': 'pt'}}
    blobs, offset = [], 0
    for name, t in tensors.items():
        data = t.detach().to(torch.float32).contiguous().numpy().astype('<f4').tobytes()
        header[name] = {'dtype': 'F32', 'shape': list(t.shape), 'data_offsets': [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * ((8 - len(text) % 8) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def rounded(t):
    return [float(f'{v:.7g}') for v in t.reshape(-1).tolist()]


def main():
    torch.manual_seed(SEED)
    g = torch.Generator().manual_seed(SEED)
    w = build_weights(g)
    lora = build_lora(g)
    seqs = [torch.randint(0, V, (n,), generator=g).tolist() for n in SEQ_LENGTHS]
    w_nf4 = {k: (nf4_roundtrip(v) if k.endswith('_proj.weight') else v) for k, v in w.items()}

    model_dir = os.path.join(ROOT, 'tiny-qwen2')
    lora_dir = os.path.join(ROOT, 'tiny-qwen2-lora')
    os.makedirs(model_dir, exist_ok=True)
    os.makedirs(lora_dir, exist_ok=True)
    config = {
        'architectures': ['Qwen2ForCausalLM'], 'model_type': 'qwen2', 'vocab_size': V, 'hidden_size': C,
        'intermediate_size': I, 'num_hidden_layers': L, 'num_attention_heads': NH,
        'num_key_value_heads': KVH, 'max_position_embeddings': 64, 'rope_theta': THETA,
        'rms_norm_eps': EPS, 'tie_word_embeddings': True, 'hidden_act': 'silu', 'torch_dtype': 'float32',
        'bos_token_id': 0, 'eos_token_id': 1, 'attention_dropout': 0.0, 'initializer_range': 0.02,
        'use_cache': True, 'use_sliding_window': False, 'sliding_window': 64, 'max_window_layers': L,
    }
    with open(os.path.join(model_dir, 'config.json'), 'w') as f:
        json.dump(config, f, indent=2)
    write_safetensors(os.path.join(model_dir, 'model.safetensors'), w)

    adapter_config = {
        'peft_type': 'LORA', 'task_type': 'CAUSAL_LM', 'r': R, 'lora_alpha': ALPHA, 'lora_dropout': 0.0,
        'bias': 'none', 'use_rslora': False, 'fan_in_fan_out': False, 'inference_mode': True,
        'base_model_name_or_path': 'tiny-qwen2',
        'target_modules': [f'{p}_proj' for p in PROJ],
    }
    with open(os.path.join(lora_dir, 'adapter_config.json'), 'w') as f:
        json.dump(adapter_config, f, indent=2)
    lora_tensors = {}
    for (l, p), (A, B) in lora.items():
        lora_tensors[f'base_model.model.{proj_name(l, p)}.lora_A.weight'] = A
        lora_tensors[f'base_model.model.{proj_name(l, p)}.lora_B.weight'] = B
    write_safetensors(os.path.join(lora_dir, 'adapter_model.safetensors'), lora_tensors)

    cases = []
    for weights_kind, weights in (('f32', w), ('nf4', w_nf4)):
        for adapter in (False, True):
            for ids in seqs:
                logits = forward(weights, lora if adapter else None, ids, torch.float32)
                lp, ent = logprobs_entropy(logits, ids)
                # the same in f64: how far f32 rounding alone moves the answer
                logits64 = forward(weights, lora if adapter else None, ids, torch.float64)
                f32_vs_f64 = float((logits.double() - logits64).abs().max())
                cases.append({
                    'weights': weights_kind, 'adapter': adapter, 'ids': ids, 'T': len(ids),
                    'f32_vs_f64_maxdiff': f32_vs_f64,
                    'logits': rounded(logits), 'logprobs': rounded(lp), 'entropy': rounded(ent),
                })
                print(f'{weights_kind} adapter={adapter} T={len(ids)}: logits std {float(logits.std()):.3f}, '
                      f'mean entropy {float(ent.mean()):.3f} (log V = {math.log(V):.3f}), f32 vs f64 {f32_vs_f64:.2e}')

    sample_name = proj_name(0, 'q') + '.weight'
    new_tokens, gap = greedy(w, seqs[1], GREEDY_NEW)
    goldens = {
        'magic': 'rlstudio-goldens', 'version': 1, 'regenerate': '/usr/bin/python3 scripts/make_goldens.py',
        'torch': torch.__version__, 'seed': SEED,
        'model': 'tiny-qwen2', 'adapter': 'tiny-qwen2-lora',
        'nf4': {'block_size': 64, 'levels': NF4_LEVELS, 'quantized': 'every *_proj.weight; embeddings and norms stay f32'},
        'nf4_sample': {'tensor': sample_name, 'n': 128, 'dequant': rounded(w_nf4[sample_name].reshape(-1)[:128])},
        'greedy': {'weights': 'f32', 'adapter': False, 'prompt': seqs[1], 'new_tokens': new_tokens, 'min_top2_gap': gap},
        'cases': cases,
    }
    with open(os.path.join(ROOT, 'goldens.json'), 'w') as f:
        json.dump(goldens, f, separators=(',', ':'))
    print('adapter effect (max |logits on - off|, f32 T=16):',
          float((forward(w, lora, seqs[2], torch.float32) - forward(w, None, seqs[2], torch.float32)).abs().max()))
    print('nf4 effect (max |logits nf4 - f32|, T=16):',
          float((forward(w_nf4, None, seqs[2], torch.float32) - forward(w, None, seqs[2], torch.float32)).abs().max()))
    print('greedy:', goldens['greedy'])
    make_grad_goldens(w, w_nf4, lora, seqs)



# ---- training goldens (grads.json). Added after everything above and drawing no random numbers,
# so goldens.json and the model/adapter files stay byte-identical.

# Loss mask per logprob row (row t predicts ids[t+1]); 0 = prompt or tool output, not trained.
MASKS = [
    [0, 1, 1, 1],
    [0, 0, 0, 1, 1, 0, 1, 1],
    [0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1],
]
TRAIN = {'lr': 1e-2, 'betas': [0.9, 0.999], 'eps': 1e-8, 'weight_decay': 0.01, 'max_grad_norm': 12.0, 'steps': 3}
# Full-mode gradients written out value by value (every other tensor: its L2 norm and sum).
FULL_SAMPLES = [
    'model.embed_tokens.weight', 'model.norm.weight', 'model.layers.0.input_layernorm.weight',
    'model.layers.0.self_attn.q_proj.bias', 'model.layers.0.self_attn.k_proj.weight',
    'model.layers.1.post_attention_layernorm.weight', 'model.layers.1.self_attn.o_proj.weight',
]


def masked_ce(weights, lora, seqs, dtype):
    """-sum(mask * logp) / sum(mask) over the whole batch (the SFT loss of src/reference/loss.ts)."""
    n = sum(sum(m) for m in MASKS)
    total = 0
    for ids, m in zip(seqs, MASKS):
        lp, _ = logprobs_entropy(forward(weights, lora, ids, dtype), ids)
        total = total - (torch.tensor(m, dtype=dtype) * lp).sum()
    return total / n


def lora_leaves(lora, dtype):
    return {k: (A.to(dtype).clone().requires_grad_(True), B.to(dtype).clone().requires_grad_(True)) for k, (A, B) in lora.items()}


def lora_case(weights, lora, seqs):
    """Loss and LoRA gradients (f64), the same in f32 for a rounding figure, and 3 AdamW steps."""
    leaves = lora_leaves(lora, torch.float64)
    loss = masked_ce(weights, leaves, seqs, torch.float64)
    loss.backward()
    leaves32 = lora_leaves(lora, torch.float32)
    masked_ce(weights, leaves32, seqs, torch.float32).backward()
    f32_vs_f64 = max(float(((a32.grad.double() - a.grad).abs().max() / a.grad.abs().max())) for (a, _), (a32, _) in
                     zip(leaves.values(), leaves32.values()))
    f32_vs_f64 = max(f32_vs_f64, max(float(((b32.grad.double() - b.grad).abs().max() / b.grad.abs().max())) for (_, b), (_, b32) in
                                     zip(leaves.values(), leaves32.values())))
    grads = {f'{l}.{p}': {'dA': rounded(A.grad), 'dB': rounded(B.grad)} for (l, p), (A, B) in leaves.items()}

    train = lora_leaves(lora, torch.float64)
    params = [t for pair in train.values() for t in pair]
    opt = torch.optim.AdamW(params, lr=TRAIN['lr'], betas=tuple(TRAIN['betas']), eps=TRAIN['eps'], weight_decay=TRAIN['weight_decay'])
    steps = []
    for _ in range(TRAIN['steps']):
        opt.zero_grad()
        step_loss = masked_ce(weights, train, seqs, torch.float64)
        step_loss.backward()
        norm = float(torch.nn.utils.clip_grad_norm_(params, TRAIN['max_grad_norm']))
        opt.step()
        steps.append({'loss': float(step_loss), 'grad_norm': norm})
    # clipping must really clip the first step; a later step below the threshold exercises both branches
    assert steps[0]['grad_norm'] > TRAIN['max_grad_norm'], 'lower max_grad_norm: step 1 must be clipped'
    after = {f'{l}.{p}': {'A': rounded(A.detach()), 'B': rounded(B.detach())} for (l, p), (A, B) in train.items()}
    return {'loss': float(loss), 'f32_vs_f64_maxrel': f32_vs_f64, 'grads': grads, 'steps': steps, 'after': after}


def full_case(weights, seqs):
    """Every weight trainable (f64), no adapter; the tied embedding gets both contributions."""
    leaves = {k: v.double().clone().requires_grad_(True) for k, v in weights.items()}
    loss = masked_ce(leaves, None, seqs, torch.float64)
    loss.backward()
    return {
        'weights': 'f32', 'adapter': False, 'loss': float(loss),
        'norms': {k: float(t.grad.norm()) for k, t in leaves.items()},
        'sums': {k: float(t.grad.sum()) for k, t in leaves.items()},
        'grads': {k: rounded(leaves[k].grad) for k in FULL_SAMPLES},
    }


def make_grad_goldens(w, w_nf4, lora, seqs):
    for ids, m in zip(seqs, MASKS):
        assert len(m) == len(ids) - 1
    out = {
        'magic': 'rlstudio-grads', 'version': 1, 'regenerate': '/usr/bin/python3 scripts/make_goldens.py',
        'torch': torch.__version__, 'seed': SEED, 'model': 'tiny-qwen2', 'adapter': 'tiny-qwen2-lora',
        'dtype': 'float64 (the engine runs f32; compare relative to each tensor\'s scale)',
        'batch': {'ids': seqs, 'masks': MASKS, 'n_tokens': sum(sum(m) for m in MASKS)},
        'train': TRAIN,
        'lora': {'f32': lora_case(w, lora, seqs), 'nf4': lora_case(w_nf4, lora, seqs)},
        'full': full_case(w, seqs),
    }
    with open(os.path.join(ROOT, 'grads.json'), 'w') as f:
        json.dump(out, f, separators=(',', ':'))
    for kind in ('f32', 'nf4'):
        c = out['lora'][kind]
        print(f'grads {kind}: loss {c["loss"]:.5f}, f32 vs f64 grads (rel) {c["f32_vs_f64_maxrel"]:.2e}, steps',
              [(round(s['loss'], 5), round(s['grad_norm'], 4)) for s in c['steps']])
    print(f'grads full: loss {out["full"]["loss"]:.5f}, embed grad norm {out["full"]["norms"]["model.embed_tokens.weight"]:.4f}')


if __name__ == '__main__':
    main()
