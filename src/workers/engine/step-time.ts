// The `time-step` request: ONE training step of a config measured before Start on the loaded model,
// at its real shapes with synthetic ids: prefill and per-token decode of B*G sequences at typical
// lengths when known (run/typical-lengths.ts: a previous run of the model, the dataset's prompts), else
// an upper bound at rollout.max_tokens,
// the log-prob / reference passes, forward+backward+AdamW of the micro-batches (SFT: one sftStep). A fresh
// Trainer, disposed after (full mode: weights restored), so a later Start sees the model as it was.
// Tested by tests/unit/workers/step-time.test.ts and, in the Config panel, tests/e2e/studio-config-plan.spec.ts.
import type { GpuRuntime } from '../../gpu/runtime';
import type { GpuModel } from '../../model/gpu/model';
import { DecodeSession } from '../../model/gpu/session';
import { GrpoLoss } from '../../gpu/kernels/grpo';
import { parseConfig } from '../../rl/config-validate';
import { lossConfig } from '../../rl/grpo-trainer';
import { episodeRows, grpoGpuUpstream, GrpoStepSums } from '../../rl/grpo-micro';
import type { RlConfig } from '../../rl/config-validate';
import { rlTrainerConfigOf } from '../../run/trainer-settings';
import { Trainer } from '../../train/trainer';
import { mulberry32 } from '../../util/rng';
import { planOptionsOf } from '../../run/run-plan';
import type { TypicalLengths } from '../../run/typical-lengths';
import type { Policies, Serial } from './policies';
import type { EngineRequest } from './protocol';

/** One timed piece of a step. */
export interface StepPart {
  name: 'prefill' | 'decode' | 'old log-probs' | 'reference' | 'train';
  /** Its share of the step (ms): decode is per-token time x the most tokens an episode samples. */
  ms: number;
  /** What was run, in words (shapes and counts). */
  what: string;
  /** Timed repeats averaged (after one untimed warm-up). */
  repeats: number;
}

export interface StepTime {
  parts: StepPart[];
  /** Sum of the parts (ms). */
  totalMs: number;
  /** Decode ms per token step (all sequences advance one token); null for SFT. */
  decodeMsPerToken: number | null;
  /** The total is an upper bound (episodes may end before rollout.max_tokens). */
  upTo: boolean;
  /** The episode lengths timed, in words: "at 180 prompt + 96 completion tokens (mean of run X)" or the upper bound. */
  lengths: string;
  /** The shape measured (planOptionsOf's words). */
  shape: string;
  /** What the figure leaves out. */
  excludes: string;
}

export type Progress = (done: number, total: number, stage: string) => void;

/** Decode steps timed per repeat (after one warm-up step). */
const DECODE_STEPS = 4;

/**
 * Deterministic synthetic token ids in [0, V) (no tokenizer: the ids only set the shapes). With
 * `prompt` > 0, each run of `group` sequences starts with the same `prompt` tokens, as a GRPO
 * step's episodes of one task do (the training step runs those rows once: TrainStep's shared rows).
 */
function syntheticSeqs(rows: number, len: number, V: number, salt: number, prompt = 0, group = 1): number[][] {
  const next = mulberry32(salt);
  const seqs = Array.from({ length: rows }, () => Array.from({ length: len }, () => Math.floor(next() * V)));
  seqs.forEach((s, i) => { if (i % group) s.splice(0, prompt, ...seqs[i - (i % group)].slice(0, prompt)); });
  return seqs;
}

/** An episode's token mask [T]: the completion's tokens (from `prompt` on) in the loss, not the prompt's (the rows a group shares). */
function lossMask(T: number, prompt: number): Float32Array {
  return new Float32Array(T).fill(1).fill(0, 0, Math.max(1, prompt));
}

/** Mean wall time (ms) of `repeats` awaited runs of `fn`, after one untimed warm-up run of `warm`. */
async function timed(repeats: number, fn: () => Promise<unknown>, warm: () => Promise<unknown> = fn): Promise<number> {
  await warm();
  const t0 = performance.now();
  for (let r = 0; r < repeats; r++) await fn();
  return (performance.now() - t0) / repeats;
}

/**
 * Rollout timing for `B` sequences on one DecodeSession: a prefill of `context` tokens per slot
 * (untimed warm-up, the slots emptied, then timed: the prompt and tool responses), then one warm-up
 * and DECODE_STEPS x repeats sampled steps at that context, each feeding back the sampled token.
 */
async function rolloutTimes(rt: GpuRuntime, model: GpuModel, cfg: RlConfig, B: number, context: number, repeats: number): Promise<{ prefillMs: number; perTokenMs: number }> {
  const session = new DecodeSession(rt, model, B, context + DECODE_STEPS * repeats + 2);
  try {
    const r = cfg.rollout;
    let k = 0;
    const params = () => ({ temperature: r.temperature, topK: r.top_k, topP: r.top_p, seed: cfg.train.seed >>> 0, step: k++ });
    const prompt = syntheticSeqs(B, context, model.cfg.vocabSize, 1);
    await session.step(prompt, params());
    for (let s = 0; s < B; s++) session.reset(s);
    const t0 = performance.now();
    let last = await session.step(prompt, params());
    const prefillMs = performance.now() - t0;
    const one = async () => { last = await session.step(Array.from(last.ids, (id) => [id]), params()); };
    await one();
    const t1 = performance.now();
    for (let i = 0; i < DECODE_STEPS * repeats; i++) await one();
    return { prefillMs, perTokenMs: (performance.now() - t1) / (DECODE_STEPS * repeats) };
  } finally {
    session.free();
  }
}

/** The trainer a run of `cfg` builds (constant LR: the schedule does not change the time). */
function trainerOf(rt: GpuRuntime, model: GpuModel, cfg: RlConfig): Promise<Trainer> {
  const tc = rlTrainerConfigOf(cfg);
  return Trainer.create(rt, model, { ...tc, optimizer: { ...tc.optimizer, schedule: { kind: 'constant', lr: cfg.optim.lr } } });
}

/**
 * Times one step of `cfg` on `model` (see the file header). Nothing is written; the model's
 * weights and adapter state are as before when it returns (or throws).
 */
export async function measureStepTime(rt: GpuRuntime, model: GpuModel, cfg: RlConfig, opts: { repeats?: number; onProgress?: Progress; lengths?: TypicalLengths | null } = {}): Promise<StepTime> {
  const repeats = opts.repeats ?? 1;
  const progress = opts.onProgress ?? (() => {});
  const { options, shape } = planOptionsOf(model.cfg, cfg);
  const rows = options.batchSize, maxT = options.seqLen, mb = options.microBatch ?? rows, V = model.cfg.vocabSize;
  const sft = cfg.trainer === 'sft';
  const r = cfg.rollout;
  // Sampled tokens per episode are at most max_new_tokens per turn x max_turns (and max_tokens).
  const decodedMax = Math.min(maxT, r.max_new_tokens * r.max_turns);
  const typical = !sft && opts.lengths ? opts.lengths : null;
  // Both within max_tokens (an episode is cut there too), the prompt first.
  const prompt = typical ? Math.max(1, Math.min(typical.prompt, maxT - 1)) : null;
  const completion = typical ? Math.max(1, Math.min(typical.completion ?? decodedMax, maxT - prompt!)) : null;
  // Trained sequences (training packs whole sequences: the mean length sets the cost): typical when known, else rollout.max_tokens.
  const T = typical ? prompt! + completion! : maxT;
  // Decode runs until the episode sampling the most ends.
  const typicalDecoded = typical ? Math.max(1, Math.min(decodedMax, typical.decoded ?? completion!)) : null;
  const lengths = typical
    ? `at ${prompt} prompt + ${typical.completion === null ? 'up to ' : ''}${completion} completion tokens (${typical.from}${typical.completion === null ? '; completion at max_new_tokens x max_turns' : ''}${typical.decoded !== null ? `; ${typicalDecoded} sampled by a step's longest episode` : ''})`
    : sft ? `at data.max_length ${maxT} tokens (upper bound)` : `upper bound at rollout.max_tokens ${maxT}`;
  // A group's episodes share their prompt when it is known (the training step runs it once).
  const seqs = syntheticSeqs(rows, T, V, 2, sft ? 0 : prompt ?? 0, cfg.rollout.group_size);
  const parts: StepPart[] = [];
  let decodeMsPerToken: number | null = null;
  const stages = sft ? 1 : 3;

  if (!sft) {
    progress(0, stages, 'decode');
    // Sampled tokens per episode are at most max_new_tokens per turn x max_turns (and max_tokens);
    // the rest of max_tokens (prompt, tool responses) is prefilled, not decoded.
    // Typical: the prompt prefilled, the completion decoded at the prompt's context plus half of it.
    // Upper bound: the rest of max_tokens (prompt, tool responses) prefilled, at least half of max_tokens as context.
    const decoded = typicalDecoded ?? decodedMax;
    const cap = Math.min(model.cfg.maxPositions, maxT);
    const want = typical ? prompt! + Math.floor(completion! / 2) : Math.max(maxT - decoded, Math.floor(maxT / 2));
    const context = Math.max(1, Math.min(want, cap - DECODE_STEPS * repeats - 3));
    const t = await rolloutTimes(rt, model, cfg, rows, context, repeats);
    decodeMsPerToken = t.perTokenMs;
    parts.push({ name: 'prefill', ms: t.prefillMs, repeats: 1,
      what: typical ? `${rows} sequences of ${context} tokens prefilled (the typical prompt and half the completion)` : `${rows} sequences of ${context} tokens prefilled (prompt and tool responses: the larger of rollout.max_tokens less the sampled tokens and half of it)` });
    parts.push({ name: 'decode', ms: decodeMsPerToken * decoded, repeats: DECODE_STEPS * repeats,
      what: `${rows} sequences sampling one token each: ${decodeMsPerToken.toFixed(1)} ms per token at context ${context}, x ${typical && typical.completion !== null ? `${decoded} tokens (${typical.decoded !== null ? 'the most one episode of a step samples' : 'the typical completion'})` : `up to ${decoded} tokens (min(rollout.max_tokens, max_new_tokens ${r.max_new_tokens} x max_turns ${r.max_turns}))`}` });
  }

  const trainer = await trainerOf(rt, model, cfg);
  // Full mode trains the model's own weights: keep them to put back.
  const saved = trainer.trainable.mode === 'full' ? await trainer.state() : null;
  try {
    if (!sft) {
      progress(1, stages, 'log-prob passes');
      const temperature = cfg.rollout.temperature;
      const g = cfg.grpo;
      const oldPass = cfg.trainer === 'ppo' || ((cfg.trainer === 'grpo') && (g.num_iterations > 1 || cfg.rollout.top_k > 0 || cfg.rollout.top_p < 1));
      const refPass = (cfg.trainer === 'grpo' || cfg.trainer === 'ppo') && g.beta > 0;
      // As a run: left on the GPU, the LM head on the loss rows (the masks: completion tokens).
      const mask = lossMask(T, prompt ?? 1).subarray(1), masks = seqs.map(() => mask);
      const logprobs = async (adapter: boolean) => rt.release(await trainer.logprobsOnGpu(seqs, adapter, temperature, 'step-time log-probs', masks));
      if (oldPass) {
        const ms = await timed(repeats, () => logprobs(true));
        parts.push({ name: 'old log-probs', ms, repeats, what: `a policy log-prob pass over ${rows} x ${T} tokens (${cfg.trainer === 'ppo' ? 'PPO\'s old log-probs and values' : 'num_iterations > 1 or top_k / top_p set'})` });
      }
      if (refPass) {
        // LoRA without a starting adapter: the base with the adapter off; else a frozen copy of the same shape.
        const adapter = trainer.trainable.mode === 'full' || cfg.model.adapter !== null;
        const ms = await timed(repeats, () => logprobs(adapter));
        parts.push({ name: 'reference', ms, repeats, what: `the KL reference's log-prob pass over ${rows} x ${T} tokens (grpo.beta ${g.beta})` });
      }
      progress(2, stages, 'train');
      parts.push(await timeGrpoTrain(rt, trainer, cfg, seqs, mb, repeats, prompt ?? 1));
    } else {
      progress(0, stages, 'train');
      const examples = seqs.map((ids) => ({ ids, mask: new Float32Array(T - 1).fill(1) }));
      const ms = await timed(repeats, () => trainer.sftStep(examples, mb), () => trainer.sftStep(examples.slice(0, mb), mb));
      parts.push({ name: 'train', ms, repeats, what: `forward+backward of ${rows} rows x ${T} tokens in micro-batches of ${mb}, then AdamW` });
    }
  } finally {
    if (saved) trainer.restore(saved);
    await trainer.dispose();
  }
  progress(stages, stages, 'done');
  return {
    parts, totalMs: parts.reduce((a, p) => a + p.ms, 0), decodeMsPerToken, upTo: !sft && (typical === null || typical.completion === null), lengths, shape,
    excludes: sft ? 'data loading and checkpoint writes' : 'tool calls (Python, search) and rewards, data loading and checkpoint writes',
  };
}

/** RL training: rejection / reward-weighted run sftStep; GRPO and PPO the GPU GRPO loss per micro-batch, num_iterations updates. */
async function timeGrpoTrain(rt: GpuRuntime, trainer: Trainer, cfg: RlConfig, seqs: number[][], mb: number, repeats: number, prompt: number): Promise<StepPart> {
  const rows = seqs.length, T = seqs[0].length;
  const mask = lossMask(T, prompt);
  if (cfg.trainer !== 'grpo' && cfg.trainer !== 'ppo') {
    const examples = seqs.map((ids) => ({ ids, mask: mask.subarray(1) }));
    const ms = await timed(repeats, () => trainer.sftStep(examples, mb), () => trainer.sftStep(examples.slice(0, mb), mb));
    return { name: 'train', ms, repeats, what: `forward+backward of ${rows} episodes x ${T} tokens in micro-batches of ${mb} (grpo.micro_batch_size), then AdamW` };
  }
  const loss = await GrpoLoss.create(rt);
  const lcfg = lossConfig(cfg);
  // Advantages +-1, ratio 1 (old = null); beta > 0 reads reference log-probs (synthetic: the values do not change the time).
  const seqRows = seqs.map((_, i) => ({ ...episodeRows(mask, null, i % 2 ? 1 : -1), ...(lcfg.beta > 0 ? { ref: new Float32Array(T - 1).fill(-2) } : {}) }));
  const norm = { tokens: rows * (T - 1), sequences: rows };
  const mu = cfg.grpo.num_iterations;
  const pass = async (upTo: number, iterations: number) => {
    const sums = new GrpoStepSums(rt);
    try {
      for (let it = 0; it < iterations; it++) {
        for (let i = 0; i < upTo; i += mb) {
          await trainer.accumulate({ seqs: seqs.slice(i, i + mb), dlogp: grpoGpuUpstream(rt, loss, seqRows.slice(i, i + mb), lcfg, norm, sums), temperature: cfg.rollout.temperature, lossRows: seqRows.slice(i, i + mb).map((r) => r.mask) });
        }
        await trainer.optimizer.update();
      }
    } finally {
      sums.release();
    }
  };
  const ms = await timed(repeats, () => pass(rows, mu), () => pass(Math.min(mb, rows), 1));
  return { name: 'train', ms, repeats, what: `${mu} x (forward+backward with the GRPO loss of ${rows} episodes x ${T} tokens in micro-batches of ${mb}, then AdamW)${cfg.trainer === 'ppo' ? '; PPO\'s value head not included' : ''}` };
}

/** The worker's answer: the loaded model (as Start would use it), the YAML parsed as Start parses it. */
export async function stepTimeRequest(policies: Policies, serial: Serial, req: Extract<EngineRequest, { kind: 'time-step' }>, onProgress: Progress): Promise<StepTime> {
  const cfg = parseConfig(req.configYaml, 'config.yaml');
  const m = policies.model(req.modelId);
  if (cfg.model.quant !== m.quant || cfg.model.quant_embeddings !== m.quantEmbeddings) {
    throw new Error(`config.yaml: model.quant ${cfg.model.quant} differs from the loaded model's (${m.quant}); measure again after the model is loaded with the config's settings`);
  }
  const model = policies.base(req.modelId);
  const rt = await policies.runtime();
  return serial.run(async () => {
    if (m.busy) throw new Error(`model ${req.modelId} is ${m.busy}; measure after that ends`);
    m.busy = 'having its step time measured';   // no Start on this model while its step is timed
    try {
      return await measureStepTime(rt, model, cfg, { onProgress, lengths: req.lengths ?? null });
    } finally {
      m.busy = null;
    }
  });
}
