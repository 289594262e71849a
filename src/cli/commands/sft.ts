// `npm run cli -- sft`: supervised fine-tuning on a JSONL file with the GPU trainer (LoRA over an
// f32/NF4 base, or every weight), one progress line per update, DIR/metrics.jsonl, checkpoints in
// DIR/checkpoints/step-N, and the export (DIR/adapter in PEFT format, or DIR/model). Resumable with
// --resume. The loop itself is src/run/sft-run.ts. Tested by tests/unit/cli/sft-cli.test.ts.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import type { CliCommand, ParsedArgs } from '../../util/args';
import { getBool, getNumber, getString, requireString } from '../../util/args';
import { stopOnInterrupt } from '../interrupt';
import { prepareRunFolder } from '../out-path';
import { openNodeRuntime } from '../../gpu/node-runtime';
import { formatBytes } from '../../gpu/errors';
import { GpuModel } from '../../model/gpu/model';
import { loadModelFiles } from '../../model/io/loader';
import { NodeDirSource, openNodeModelSource } from '../../model/io/node-source';
import { readPeftAdapter } from '../../model/io/peft';
import type { TrainState } from '../../train/checkpoint';
import { describeSftDataset, readSftJsonl } from '../../train/data';
import { formatPlan } from '../../train/memory-plan';
import { planSftRun, resolveSftConfig, resumeConfig, SftRun } from '../../run/sft-run';
import { prepareResume, resumedConfigYaml, resumedKeepCheckpoints, resumedTemplate, savedSftData } from '../../run/resume';
import { RunControl } from '../../train/run-control';
import { fanOut } from '../../run/events';
import { METRICS_FILE } from '../../run/layout';
import { NodeFsStorage } from '../../run/node-storage';
import { printRun } from '../../run/printer';
import { recordRun } from '../../run/recorder';
import { parseConfig, type RunConfig } from '../../run/config';
import { sftFlagSets, sftInputOf, sftMaxLength, sftTemplateOf } from '../../run/trainer-settings';

const USAGE = `Usage: npm run cli -- sft --model PATH --data F.jsonl --out DIR [options]
       npm run cli -- sft --config configs/sft.yaml [--set key=value] [options]

Every option below except --model, --data, --out, --adapter, --base-model, --tune, --resume
and --overwrite is a shorthand for a field of the run config shared with \`train\` (README
"Training with RL"; e.g. --rank 4 is --set lora.rank=4), with the trainer: sft defaults.
  --config F.yaml         e.g. configs/sft.yaml (trainer: sft)
  --set key=value         override one config field (repeatable; wins over the shorthands)

Model and data
  --model PATH            Hugging Face model folder, or a llama2.c .bin checkpoint
  --tokenizer F           llama2.c tokenizer .bin (default: tok*.bin beside the checkpoint)
  --data F.jsonl          one example per line: {"messages": [...]} (loss on assistant tokens),
                          {"text": "..."} (loss on every token) or {"ids": [...], "mask": [...]}
  --out DIR               checkpoints/step-N/, adapter/ (or model/), metrics.jsonl go here; a folder
                          that already holds files needs --resume or --overwrite
  --max-length N          longest example in tokens, longer ones truncated (default min(512, context))
  --quant nf4|none        frozen base in 4-bit NF4 (LoRA default) or f32 (--mode full: none)
  --quant-embeddings      also quantize the embedding / LM head (LoRA only)
  --base-model NAME       base_model_name_or_path written in adapter_config.json (default --model)
  --tune true|false       time kernel variants at load (default true; false: defaults, faster start)

What to train
  --mode lora|full        a LoRA adapter (default) or every weight
  --adapter DIR           start from this PEFT adapter (its rank, alpha and targets are used)
  --rank R                LoRA rank (default 16)
  --alpha A               LoRA alpha (default 2 x rank)
  --targets LIST          projections, comma-separated (default q,k,v,o,gate,up,down)
  --rslora true|false     rsLoRA scaling alpha / sqrt(R) (default false)

Optimization
  --lr X                  peak learning rate (default 2e-4; full mode wants about 1e-5)
  --steps N               optimizer updates (default one epoch)
  --batch-size B          examples per update (default 8)
  --micro-batch N         examples per forward/backward; gradients accumulate (default 8, at most B)
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

export const command: CliCommand = {
  name: 'sft',
  summary: 'supervised fine-tuning (LoRA or full) on a JSONL file, with checkpoints and PEFT export',
  usage: USAGE,
  run: (args) => runSft(args, null),
};

/** Stands for data.dataset until the checkpoint of a resumed run names its data file. */
const FROM_CHECKPOINT = "(the checkpoint's data file)";

/**
 * `npm run cli -- sft`, and `train` with trainer: sft (`given`: its parsed config; the shorthand
 * options are then not read). The run config comes from the file (or the trainer: sft
 * defaults), the shorthand options, then --set; sftInputOf turns it into the loop's settings.
 */
export async function runSft(args: ParsedArgs, given: RunConfig | null): Promise<number> {
  const log = (s: string) => process.stderr.write(s);
  const resumeFlag = args.flags.resume;
  const resumeDir = typeof resumeFlag === 'string' ? resumeFlag : undefined;
  const outFlag = getString(args, 'out');
  if (resumeDir && outFlag && resolve(outFlag) !== resolve(resumeDir)) {
    throw new Error(`--resume ${resumeDir} continues the run in its own folder, but --out is ${outFlag}; drop --out (or copy the run folder first)`);
  }
  const configFile = getString(args, 'config');
  const text = configFile ? readFileSync(configFile, 'utf8') : 'trainer: sft\n';
  const dataFlag = getString(args, 'data') ?? getString(args, 'dataset');
  const build = (dataset: string | undefined): RunConfig => given ?? parseConfig(text, configFile ?? 'sft options', {
    sets: [...(args.flags.mode === 'full' && args.flags.quant === undefined ? ['model.quant=none'] : []), ...sftFlagSets(args.flags), ...(args.all.set ?? [])],
    model: getString(args, 'model'), dataset, out: outFlag ?? resumeDir,
  });
  // A resume may take its data file from the checkpoint, read once the model is known.
  const first = build(dataFlag ?? (resumeFlag !== undefined ? FROM_CHECKPOINT : undefined));
  if (first.trainer !== 'sft') throw new Error(`${configFile}: trainer is "${first.trainer}"; this command runs SFT (use \`npm run cli -- train\` for ${first.trainer})`);
  const out = resolve(first.log.out_dir);
  const intent = resumeFlag !== undefined ? 'resume' : getBool(args, 'overwrite', false) ? 'overwrite' : 'new';
  const folder = prepareRunFolder(out, intent, 'sft');
  const modelPath = first.model.path;
  const rt = await openNodeRuntime();
  log(`gpu: ${rt.report.vendor} ${rt.report.architecture}\n`);
  const loaded = await loadModelFiles(await openNodeModelSource(modelPath, { tokenizer: first.model.tokenizer ?? undefined }));
  const cfg = loaded.config;

  const storage = new NodeFsStorage(out);
  let state: TrainState | null = null, resumedFrom: string | null = null;
  if (folder === 'resume') {
    const r = await prepareResume(storage, cfg, 'sft', log);
    state = r.state;
    resumedFrom = r.dir;
    log(state ? `resume: ${r.from} at step ${state.step} (${state.mode}${state.lora ? ` r=${state.lora.rank}` : ''})` : `resume: no complete checkpoint in ${out} yet, starting over`);
    log(r.cut ? `; cut ${r.cut} metrics.jsonl rows past it\n` : '\n');
  }
  const saved = savedSftData(state);
  const built = state || first.data.dataset !== FROM_CHECKPOINT ? first : build(undefined);
  // A resumed run keeps its own log.keep_checkpoints (config.yaml) unless --set gives one, and
  // tokenizes its data with its own model.template (under `train`, the config given sets both).
  const ownSettings = folder === 'resume' && !given;
  const keep = ownSettings ? await resumedKeepCheckpoints(storage, built.log.keep_checkpoints, args.all.set ?? []) : built.log.keep_checkpoints;
  const template = ownSettings ? await resumedTemplate(storage, built.model.template) : built.model.template;
  const rc: RunConfig = { ...built, model: { ...built.model, template }, log: { ...built.log, keep_checkpoints: keep } };
  const input = sftInputOf(rc);
  const dataPath = state ? (rc.data.dataset !== FROM_CHECKPOINT ? rc.data.dataset : null) ?? saved.file ?? requireString(args, 'data') : rc.data.dataset!;
  const maxLength = state ? saved.maxLength ?? 512 : sftMaxLength(rc, cfg.maxPositions);
  const data = readSftJsonl(readFileSync(dataPath, 'utf8'), dataPath, { tokenizer: loaded.tokenizer, maxLength, vocabSize: cfg.vocabSize, ...sftTemplateOf(rc) });
  log(`${describeSftDataset(data)}\n`);
  const ctx = { examples: data.examples.length, cfg };
  const overrides = given ? { steps: given.train.steps || undefined, saveEvery: given.log.checkpoint_every } : { steps: getNumber(args, 'steps'), saveEvery: getNumber(args, 'save-every') };
  const config = state ? resumeConfig(state, overrides, ctx) : resolveSftConfig({ ...input, maxLength }, ctx);

  const adapterDir = getString(args, 'adapter');
  if (adapterDir && config.mode !== 'lora') throw new Error('--adapter starts a LoRA run; drop it or use --mode lora');
  const adapter = adapterDir && !state ? await readPeftAdapter(new NodeDirSource(adapterDir), cfg) : null;
  const quant = config.mode === 'full' && args.flags.quant === undefined ? 'none' : rc.model.quant;
  const quantEmbeddings = rc.model.quant_embeddings;
  if (config.mode === 'full' && (quant !== 'none' || quantEmbeddings)) throw new Error('full fine-tuning trains f32 weights: use --quant none without --quant-embeddings');
  const maxRows = Math.max(512, config.maxLength);
  const lora = adapter?.config ?? state?.lora;
  const plan = planSftRun(cfg, config, data, { quant, quantEmbeddings, maxRows, lora: lora ? { rank: lora.rank, targets: lora.targets } : undefined, cursor: state?.rng.data, startStep: state?.step });
  log(`memory plan (${config.mode}, quant ${quant}${quantEmbeddings ? ' + embeddings' : ''}, batch ${config.batchSize} x ${Math.max(...data.examples.map((e) => e.ids.length))} tokens, micro-batch ${config.microBatch}, recompute ${config.recompute ? 'on' : 'off'}):\n${formatPlan(plan)}\n`);

  const model = await GpuModel.load(rt, cfg, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, {
    quant, quantEmbeddings, maxRows, tune: getBool(args, 'tune', true),
    onProgress: (done, total) => { if (process.stderr.isTTY || done === total) log(`\rloading weights ${done}/${total}${done === total ? '\n' : ''}`); },
  });
  const run = await SftRun.create(rt, model, { runId: out, plan, config, data, baseModelName: getString(args, 'base-model') ?? modelPath, tokenizer: loaded.tokenizer, adapter, resume: state, resumedFrom });
  const c = run.config;
  log(`sft: ${c.mode}${c.mode === 'lora' ? ` r=${c.rank} alpha=${c.alpha} targets ${c.targets.join(',')}` : ''}, ${run.trainer.trainable.params.numParams} trainable values, ` +
    `lr ${c.lr} ${c.schedule} warmup ${c.warmup}, ${c.steps} updates of ${c.batchSize} examples (from step ${run.step})\n`);

  if (!state) await storage.writeFile(METRICS_FILE, '');
  const t0 = performance.now();
  const control = new RunControl();
  const release = stopOnInterrupt(control, log);
  const print = printRun({ out: (l) => console.log(l), log: (l) => log(l + '\n'), where: (p) => storage.where(p) });
  let finished = false;
  const configYaml = (state ? await resumedConfigYaml(storage, { steps: c.steps, checkpointEvery: c.saveEvery, keepCheckpoints: keep }) : null) ?? stringify(rc);
  await run.run(fanOut(recordRun(storage, { configYaml, status: true, keepCheckpoints: rc.log.keep_checkpoints }), print, (e) => { finished ||= e.kind === 'finished'; }), c.steps, control);
  release();
  if (!finished) {
    log(`stopped at step ${run.step}; continue with --resume ${out}\n`);
    await run.dispose();
    model.dispose();
    return 0;
  }
  const peak = rt.memory().peak;
  log(`done: ${run.step} updates in ${((performance.now() - t0) / 1000).toFixed(1)} s; GPU peak ${formatBytes(peak)} (plan ${formatBytes(plan.total)})\n`);
  await run.dispose();
  model.dispose();
  return 0;
}
