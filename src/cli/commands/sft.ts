// `npm run cli -- sft`: supervised fine-tuning on a JSONL file with the GPU trainer (LoRA over an
// f32/NF4 base, or every weight), one progress line per update, DIR/metrics.jsonl, checkpoints in
// DIR/checkpoint, and the export (DIR/adapter in PEFT format, or DIR/model). Resumable with
// --resume. The loop itself is src/train/sft-run.ts. Tested by tests/unit/sft-cli.test.ts.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CliCommand, ParsedArgs } from '../args';
import { getBool, getNumber, getString, requireString } from '../args';
import { parseQuant } from '../load-model';
import { prepareRunFolder } from '../out-path';
import { getNodeGpu } from '../../gpu/node-gpu';
import { GpuRuntime } from '../../gpu/runtime';
import { formatBytes } from '../../gpu/errors';
import { GpuModel } from '../../model/gpu/model';
import { loadModelFiles } from '../../model/io/loader';
import { NodeDirSource, openNodeModelSource } from '../../model/io/node-source';
import { readPeftAdapter } from '../../model/io/peft';
import { PROJECTIONS, type Projection } from '../../model/types';
import type { TrainState } from '../../train/checkpoint';
import { describeSftDataset, readSftJsonl } from '../../train/data';
import { formatPlan } from '../../train/memory-plan';
import { formatStep, planSftRun, resolveSftConfig, resumeConfig, SftRun, type SftConfigInput } from '../../train/sft-run';
import { cutJsonl, recoverCheckpoint, sftSlots } from '../../train/run-folder';
import { writeFilesAtomic } from '../../train/write-files';
import { parseConfig, type RlConfig } from '../../rl/config';

const USAGE = `Usage: npm run cli -- sft --model PATH --data F.jsonl --out DIR [options]
       npm run cli -- sft --config configs/sft.yaml [--set key=value] [options]

Config file (optional): the sections shared with \`train\` (model, data.dataset, lora, optim,
train, log, grpo.micro_batch_size) set the defaults below; options given here win.
  --config F.yaml         e.g. configs/sft.yaml
  --set key=value         override one config field (repeatable)

Model and data
  --model PATH            Hugging Face model folder, or a llama2.c .bin checkpoint
  --tokenizer F           llama2.c tokenizer .bin (default: tok*.bin beside the checkpoint)
  --data F.jsonl          one example per line: {"messages": [...]} (loss on assistant tokens),
                          {"text": "..."} (loss on every token) or {"ids": [...], "mask": [...]}
  --out DIR               checkpoint/, adapter/ (or model/), metrics.jsonl go here; a folder
                          that already holds files needs --resume or --overwrite
  --max-length N          longest example in tokens; longer ones are truncated (default 512)
  --quant nf4|none        frozen base in 4-bit NF4 (LoRA default) or f32 (full mode: none)
  --quant-embeddings      also quantize the embedding / LM head (LoRA only)
  --base-model NAME       base_model_name_or_path written in adapter_config.json (default --model)
  --tune true|false       time kernel variants at load (default true; false: defaults, faster start)

What to train
  --mode lora|full        a LoRA adapter (default) or every weight
  --adapter DIR           start from this PEFT adapter (its rank, alpha and targets are used)
  --rank R                LoRA rank (default 16)
  --alpha A               LoRA alpha (default 2 x rank)
  --targets LIST          projections, comma-separated (default q,k,v,o,gate,up,down)

Optimization
  --lr X                  peak learning rate (default 2e-4 LoRA, 1e-5 full)
  --steps N               optimizer updates (default one epoch)
  --batch-size B          examples per update (default 8)
  --micro-batch N         examples per forward/backward; gradients accumulate (default B)
  --shuffle true|false    reshuffle every epoch (default true)
  --clip C                gradient-norm clipping, 0 = off (default 1.0)
  --weight-decay W        AdamW decoupled weight decay (default 0)
  --schedule constant|cosine   learning-rate schedule (default cosine)
  --warmup N              linear warmup updates (default 0)
  --seed S                data order and fresh-adapter seed (default 0)
  --recompute true|false  recompute activations in the backward: less memory (default false)

Checkpoints
  --save-every N          checkpoint every N updates (default: only at the end)
  --resume DIR            continue the run in DIR from its newest complete checkpoint exactly (its
                          config; --steps may raise the total); rows of metrics.jsonl past that
                          checkpoint are cut. Without a checkpoint yet, starts DIR over.
                          A bare --resume continues --out.
  --overwrite             delete what --out holds and start a new run there

Prints the memory plan, then one line per update (step, loss, grad_norm, learning_rate,
tokens/s); DIR/metrics.jsonl gets the same as JSON lines.`;

function parseTargets(v: string | undefined): Projection[] | undefined {
  if (v === undefined) return undefined;
  const list = v.split(',').map((s) => s.trim().replace(/_proj$/, '')).filter(Boolean);
  const bad = list.filter((p) => !PROJECTIONS.includes(p as Projection));
  if (bad.length || !list.length) throw new Error(`--targets: ${bad.length ? `unknown ${bad.join(', ')}` : 'empty'}; use a comma-separated list of ${PROJECTIONS.join(',')}`);
  return list as Projection[];
}

/** The options given on the command line (absent ones undefined). */
function configInput(args: ParsedArgs): SftConfigInput {
  const mode = getString(args, 'mode');
  if (mode !== undefined && mode !== 'lora' && mode !== 'full') throw new Error(`--mode must be lora or full, got "${mode}"`);
  const schedule = getString(args, 'schedule');
  if (schedule !== undefined && schedule !== 'constant' && schedule !== 'cosine') throw new Error(`--schedule must be constant or cosine, got "${schedule}"`);
  const bool = (k: string) => (args.flags[k] === undefined ? undefined : getBool(args, k, false));
  const input: SftConfigInput = {
    mode, schedule, rank: getNumber(args, 'rank'), alpha: getNumber(args, 'alpha'), targets: parseTargets(getString(args, 'targets')),
    lr: getNumber(args, 'lr'), steps: getNumber(args, 'steps'), batchSize: getNumber(args, 'batch-size'), microBatch: getNumber(args, 'micro-batch'),
    shuffle: bool('shuffle'), clip: getNumber(args, 'clip'), weightDecay: getNumber(args, 'weight-decay'),
    warmup: getNumber(args, 'warmup'), seed: getNumber(args, 'seed'), recompute: bool('recompute'),
    maxLength: getNumber(args, 'max-length'), saveEvery: getNumber(args, 'save-every'),
  };
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as SftConfigInput;
}

/** The SFT fields of a `train`-style config (configs/sft.yaml). */
function fromRlConfig(c: RlConfig): SftConfigInput {
  return {
    mode: c.lora.mode, rank: c.lora.rank, alpha: c.lora.alpha, targets: c.lora.targets, useRslora: c.lora.rslora,
    lr: c.optim.lr, schedule: c.optim.schedule, warmup: c.optim.warmup_steps, weightDecay: c.optim.weight_decay, clip: c.optim.max_grad_norm,
    steps: c.train.steps, seed: c.train.seed, recompute: c.train.recompute, microBatch: c.grpo.micro_batch_size, saveEvery: c.log.checkpoint_every,
  };
}

export const command: CliCommand = {
  name: 'sft',
  summary: 'supervised fine-tuning (LoRA or full) on a JSONL file, with checkpoints and PEFT export',
  usage: USAGE,
  async run(args) {
    const log = (s: string) => process.stderr.write(s);
    const resumeFlag = args.flags.resume;
    const resumeDir = typeof resumeFlag === 'string' ? resumeFlag : undefined;
    const outFlag = getString(args, 'out');
    if (resumeDir && outFlag && resolve(outFlag) !== resolve(resumeDir)) {
      throw new Error(`--resume ${resumeDir} continues the run in its own folder, but --out is ${outFlag}; drop --out (or copy the run folder first)`);
    }
    const configFile = getString(args, 'config');
    const rl = configFile ? parseConfig(readFileSync(configFile, 'utf8'), configFile, {
      sets: args.all.set ?? [], model: getString(args, 'model'), dataset: getString(args, 'data') ?? getString(args, 'dataset'), out: getString(args, 'out'),
    }) : null;
    if (rl && rl.trainer !== 'sft') throw new Error(`${configFile}: trainer is "${rl.trainer}"; this command runs SFT (use \`npm run cli -- train\` for ${rl.trainer})`);
    const out = resolve(outFlag ?? resumeDir ?? rl?.log.out_dir ?? requireString(args, 'out'));
    const intent = resumeFlag !== undefined ? 'resume' : getBool(args, 'overwrite', false) ? 'overwrite' : 'new';
    const folder = prepareRunFolder(out, intent, 'sft');
    const modelPath = getString(args, 'model') ?? rl?.model.path ?? requireString(args, 'model');
    if (rl) {
      if (args.flags.quant === undefined) args.flags.quant = rl.model.quant;
      if (args.flags['quant-embeddings'] === undefined && rl.model.quant_embeddings) args.flags['quant-embeddings'] = true;
      if (args.flags.tokenizer === undefined && rl.model.tokenizer) args.flags.tokenizer = rl.model.tokenizer;
    }
    const { gpu } = await getNodeGpu();
    const rt = await GpuRuntime.create(gpu);
    log(`gpu: ${rt.report.vendor} ${rt.report.architecture}\n`);
    const loaded = await loadModelFiles(await openNodeModelSource(modelPath, { tokenizer: getString(args, 'tokenizer') }));
    const cfg = loaded.config;

    const metricsFile = join(out, 'metrics.jsonl');
    let state: TrainState | null = null;
    if (folder === 'resume') {
      const found = await recoverCheckpoint(await sftSlots(out), cfg, (s) => s.step, log);
      state = found?.state ?? null;
      const cut = await cutJsonl(metricsFile, found?.step ?? 0);
      log(found ? `resume: ${found.dir} at step ${found.step} (${found.state.mode}${found.state.lora ? ` r=${found.state.lora.rank}` : ''})` : `resume: no complete checkpoint in ${out} yet, starting over`);
      log(cut ? `; cut ${cut} metrics.jsonl rows past it\n` : '\n');
    }
    const saved = state?.config as { data?: { file?: string }; maxLength?: number } | undefined;
    const dataPath = getString(args, 'data') ?? rl?.data.dataset ?? saved?.data?.file ?? requireString(args, 'data');
    const input: SftConfigInput = { ...(rl ? fromRlConfig(rl) : {}), ...configInput(args) };
    const maxLength = state ? saved?.maxLength ?? 512 : input.maxLength ?? Math.min(512, cfg.maxPositions);
    const data = readSftJsonl(readFileSync(dataPath, 'utf8'), dataPath, { tokenizer: loaded.tokenizer, maxLength, vocabSize: cfg.vocabSize });
    log(`${describeSftDataset(data)}\n`);
    const ctx = { examples: data.examples.length, cfg };
    const config = state ? resumeConfig(state, { steps: input.steps, saveEvery: input.saveEvery }, ctx) : resolveSftConfig({ ...input, maxLength }, ctx);

    const adapterDir = getString(args, 'adapter');
    if (adapterDir && config.mode !== 'lora') throw new Error('--adapter starts a LoRA run; drop it or use --mode lora');
    const adapter = adapterDir && !state ? await readPeftAdapter(new NodeDirSource(adapterDir), cfg) : null;
    if (config.mode === 'full' && args.flags.quant === undefined) args.flags.quant = 'none';
    const quant = parseQuant(args);
    const quantEmbeddings = getBool(args, 'quant-embeddings', false);
    if (config.mode === 'full' && (quant !== 'none' || quantEmbeddings)) throw new Error('full fine-tuning trains f32 weights: use --quant none without --quant-embeddings');
    const maxRows = Math.max(512, config.maxLength);
    const lora = adapter?.config ?? state?.lora;
    const plan = planSftRun(cfg, config, data, { quant, quantEmbeddings, maxRows, lora: lora ? { rank: lora.rank, targets: lora.targets } : undefined, cursor: state?.rng.data, startStep: state?.step });
    log(`memory plan (${config.mode}, quant ${quant}${quantEmbeddings ? ' + embeddings' : ''}, batch ${config.batchSize} x ${Math.max(...data.examples.map((e) => e.ids.length))} tokens, micro-batch ${config.microBatch}, recompute ${config.recompute ? 'on' : 'off'}):\n${formatPlan(plan)}\n`);

    const model = await GpuModel.load(rt, cfg, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, {
      quant, quantEmbeddings, maxRows, tune: getBool(args, 'tune', true),
      onProgress: (done, total) => { if (process.stderr.isTTY || done === total) log(`\rloading weights ${done}/${total}${done === total ? '\n' : ''}`); },
    });
    const run = await SftRun.create(rt, model, { config, data, baseModelName: getString(args, 'base-model') ?? modelPath, tokenizer: loaded.tokenizer, adapter, resume: state });
    const c = run.config;
    log(`sft: ${c.mode}${c.mode === 'lora' ? ` r=${c.rank} alpha=${c.alpha} targets ${c.targets.join(',')}` : ''}, ${run.trainer.trainable.params.numParams} trainable values, ` +
      `lr ${c.lr} ${c.schedule} warmup ${c.warmup}, ${c.steps} updates of ${c.batchSize} examples (from step ${run.step})\n`);

    mkdirSync(out, { recursive: true });
    if (!state) writeFileSync(metricsFile, '');
    const saveCheckpoint = async (files: Map<string, Uint8Array>, step: number) => {
      const dir = join(out, 'checkpoint');
      await writeFilesAtomic(dir, files);
      log(`checkpoint: ${dir} (step ${step})\n`);
    };
    const t0 = performance.now();
    await run.run({
      onStep: (m) => {
        console.log(formatStep(m, c.steps));
        appendFileSync(metricsFile, JSON.stringify(m) + '\n');
      },
      onCheckpoint: saveCheckpoint,
    });
    if (!existsSync(join(out, 'checkpoint'))) await saveCheckpoint(await run.checkpoint(), run.step);
    const exported = await run.exportFiles();
    await writeFilesAtomic(join(out, exported.folder), exported.files);
    const peak = rt.memory().peak;
    log(`export: ${join(out, exported.folder)} (${[...exported.files.keys()].join(', ')})\n`);
    log(`done: ${run.step} updates in ${((performance.now() - t0) / 1000).toFixed(1)} s; GPU peak ${formatBytes(peak)} (plan ${formatBytes(plan.total)})\n`);
    await run.dispose();
    model.dispose();
    return 0;
  },
};
