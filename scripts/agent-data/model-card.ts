// The model card of the shipped agent (public/models/agent-tiny/README.md), written from the
// training runs' own records: the config, the recipe and each stage's DIR/<stage>/metrics.jsonl
// (loss curve, tokens seen, wall time, tokens/s). Called by `npm run train-agent -- --publish`; the card is
// regenerated on every publish so its figures are never typed by hand.
import type { ModelConfig } from '../../src/model/types';

export interface StepRecord {
  step: number;
  loss: number;
  num_tokens: number;
  step_time: number;
  'perf/train_tokens_per_s': number;
}

/** One curriculum stage as run: its plan (name, planned updates, lr, data) and its metrics rows. */
export interface StageRecord {
  name: string;
  steps: number;
  lr: number;
  data: string;
  /** The stage's own schedule, when it has one (else the recipe's). */
  schedule?: string;
  metrics: StepRecord[];
  /** The stage's section of the card published before, used when its metrics are not on this machine (a run started with --start-at). */
  published?: string;
}

/** The "### Stage NAME" sections of a published card, by stage name. */
export function publishedStageSections(card: string): Map<string, string> {
  const sections = new Map<string, string>();
  for (const part of card.split(/^(?=### Stage |## )/m)) {
    const m = /^### Stage (\w+)/.exec(part);
    if (m) sections.set(m[1], part.trimEnd());
  }
  return sections;
}

export interface CardInput {
  cfg: ModelConfig;
  params: number;
  /** The recipe's shared settings (the stages are given separately). */
  recipe: Record<string, unknown>;
  stages: StageRecord[];
  /** The JSON line `npm run cli -- eval` printed for this checkpoint, when one was run. */
  evaluation?: Record<string, number | string>;
  /** The same after the GRPO preset (eval with its adapter), when one was run. */
  rlEvaluation?: Record<string, number | string>;
}

/** The eval figures as a table (success per family, tool-call and malformed-call rates, turns), with a column after the GRPO preset when given. */
function evaluationText(e: Record<string, number | string>, rl?: Record<string, number | string>): string {
  const pct = (x: Record<string, number | string>, k: string) => (typeof x[k] === 'number' ? `${(100 * (x[k] as number)).toFixed(1)} %` : 'n/a');
  const num = (x: Record<string, number | string>, k: string) => (typeof x[k] === 'number' ? (x[k] as number).toFixed(2) : 'n/a');
  const row = (label: string, k: string, f: typeof pct) => `| ${label} | ${f(e, k)} |${rl ? ` ${f(rl, k)} |` : ''}`;
  return `Held-out split (\`datasets/agent_eval.jsonl\`, first ${e.tasks} tasks, greedy):
\`npm run cli -- eval --config configs/agent_grpo.yaml --tasks ${e.tasks}\`${rl ? `; after the GRPO preset
(\`npm run cli -- train --config configs/agent_grpo.yaml\`, 40 steps, seed 0) the same with
\`--adapter runs/agent_grpo/adapter\`` : ''}.

| figure | this model |${rl ? ' after the GRPO preset |' : ''}
| --- | --- |${rl ? ' --- |' : ''}
${[
  row('success, all', 'eval/accuracy', pct),
  row('success, calculator', 'eval/accuracy/calculator', pct),
  row('success, lookup', 'eval/accuracy/lookup', pct),
  row('tool calls per episode', 'tools/call_frequency', num),
  row('failed tool calls (share of calls)', 'tools/failure_frequency', pct),
  row('episodes with a malformed call', 'eval/malformed_call_rate', pct),
  row('mean turns', 'num_turns/mean', num),
  row('mean reward', 'eval/reward', num),
].join('\n')}`;
}

/** Mean loss of the records in steps (from, to]. */
function meanLoss(ms: StepRecord[], from: number, to: number): number {
  const xs = ms.filter((m) => m.step > from && m.step <= to).map((m) => m.loss);
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
}

/** A stage's figures and loss curve. */
function stageText(st: StageRecord): string {
  const ms = st.metrics;
  if (ms.length === 0 && st.published) return st.published;
  if (ms.length === 0) return `### Stage ${st.name}\n\nNot run yet (planned: ${st.steps} updates at lr ${st.lr} on ${st.data}).`;
  const last = ms[ms.length - 1];
  const wall = ms.reduce((a, m) => a + m.step_time, 0);
  const every = Math.max(1, Math.ceil(ms.length / 12));
  const curve = [];
  for (let s = every; s <= ms.length; s += every) curve.push(`| ${s} | ${meanLoss(ms, s - every, s).toFixed(3)} | ${ms[s - 1].num_tokens} |`);
  return `### Stage ${st.name}: ${st.data}

Planned ${st.steps} updates at peak lr ${st.lr}${st.schedule ? ` (${st.schedule} schedule)` : ''}.${last.step < st.steps ? ` **Stopped after ${last.step} of them** (resume with \`npm run train-agent\`: it continues from the checkpoint).` : ''}

| figure | value |
| --- | --- |
| updates | ${last.step} |
| tokens seen (prompt + completion rows) | ${last.num_tokens} |
| wall time of the updates | ${(wall / 60).toFixed(1)} min on SwiftShader (2 shared CPU cores) |
| mean tokens/s | ${(last.num_tokens / wall).toFixed(1)} |
| first / last loss | ${ms[0].loss.toFixed(3)} / ${last.loss.toFixed(3)} |

Loss curve (mean loss over each span of updates):

| up to update | mean loss | tokens seen |
| ---: | ---: | ---: |
${curve.join('\n')}`;
}

export function modelCard(c: CardInput): string {
  const a = c.cfg;
  return `# agent-tiny: the shipped default agent

A ${(c.params / 1000).toFixed(0)}K-parameter Qwen2-architecture decoder trained **from scratch** by this
project's own WebGPU engine (full-mode SFT, \`npm run train-agent\`) to call two tools in the
Qwen/hermes format — \`python\` for arithmetic word problems, \`search\` over a fictional corpus —
read the tool response and answer inside \`<answer></answer>\`. Environment: \`agent\`
(src/envs/agent/env.ts); preset: \`configs/agent_grpo.yaml\`. License: MIT (weights, tokenizer and
data were all made by this project).

## Architecture

| field | value |
| --- | --- |
| architecture | Qwen2ForCausalLM (tied embeddings, q/k/v biases, grouped-query attention) |
| hidden size C | ${a.hiddenSize} |
| layers L | ${a.numLayers} |
| heads NH / kv heads KVH / head size HS | ${a.numHeads} / ${a.numKvHeads} / ${a.headDim} |
| intermediate I | ${a.intermediateSize} |
| vocabulary V | ${a.vocabSize} |
| context | ${a.maxPositions} |
| parameters | ${c.params} |
| weights | f32 safetensors, ${(c.params * 4 / 1e6).toFixed(2)} MB |

## Tokenizer

Byte-level BPE trained by \`scripts/make-agent-tokenizer.ts\` on the rendered SFT traces: 256 byte
tokens, 761 merges, and 7 added tokens (\`<|endoftext|>\`, \`<|im_start|>\`, \`<|im_end|>\`,
\`<tool_call>\`, \`</tool_call>\`, \`<tool_response>\`, \`</tool_response>\`). Why byte-level BPE
rather than a word vocabulary: the held-out questions name places and people never seen in
training, which a word vocabulary would turn into unknown tokens; byte-level BPE spells any
string, and 761 merges cover the fixed template text in about one token per word. Digits are split
one per token (as Qwen2), so the model copies numbers digit by digit from the question into the
code and from the tool response into the answer. The chat template (tokenizer_config.json) is
Qwen2.5's layout with a one-line-per-tool \`# Tools\` block.

## Data

\`datasets/agent_sft.jsonl\`: 5,000 episodes (2,500 calculator, 2,500 lookup) generated by
\`npm run make-agent-data\` (seed 11); the tool responses are the real Pyodide and BM25 outputs.
Held-out split \`datasets/agent_eval.jsonl\` (400 tasks): other places and people, one operand
per calculator task from 61-99 (training 2-60), and phrasings never seen in training (1 of 7
calculator and 2 of 12 lookup templates, drawn alongside the training ones). The copy drill
(\`scripts/agent-data/copy-drill.ts\`, generated by the training script from its seed): a system
prompt "Repeat the text exactly.", a user line of 3-14 random numbers, made-up names, words and
operators, and the assistant repeating it (inside \`<answer>\` for a third of the lines).

## Training

Recipe (scripts/train-agent.ts, \`AGENT_RECIPE\`): ${Object.entries(c.recipe).map(([k, v]) => `${k} ${String(v)}`).join(', ')}.
Loss on assistant tokens only. Six stages: a from-scratch model of this size trained on the agent
traces alone never learned to copy a number from a tool response into its answer, and repeating
whole messages (the copy drill) is learnt by position, which does not transfer; so after the copy
drill it repeats spans that start at a random item (the induction drill), then learns the traces
with induction and extraction drill lines mixed in, the lr decayed to 0 (cosine). The SFT model
failed on people it had not seen (letter tokens no training text contained), so the augment
stage trains again on the traces with made-up people in the calculator questions (random letters
or place-name syllables; \`scripts/agent-data/augment.ts\`) and the lookup traces twice; the read
stage adds lookups on places made up for one line each (the reading drill), whose answers can
only be read from the tool response. The read model called a tool on every question, which left
the GRPO preset nothing that 40 steps could teach (held-out 51.7 % before, 52.5 % after). The
last stage, direct, trains on the traces with half of them (seeded) rewritten to answer at once,
without a tool, as SFT data gathered from several sources mixes tool use with answers written from
memory: the answers are right, but this model cannot do the arithmetic or know an unseen place's
facts in its head, so it calls a tool on about half the questions and answers the rest wrongly.
That is what the GRPO preset then teaches it: calling the tool pays (see the README, "The
default agent").

${c.stages.map(stageText).join('\n\n')}

## Evaluation

${c.evaluation ? evaluationText(c.evaluation, c.rlEvaluation) : 'Not run for this checkpoint: `npm run cli -- eval --config configs/agent_grpo.yaml`.'}
`;
}
