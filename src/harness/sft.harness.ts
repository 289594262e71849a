// Harness function for SFT in the browser: a model from File objects (as a user's drop gives),
// a JSONL text, a fresh LoRA adapter trained by the same SftRun the CLI uses, checkpoints kept
// in memory, and the PEFT export turned into Blobs (what the UI offers as downloads) and read
// back with readPeftAdapter. Used by tests/e2e/sft.spec.ts (stories260K in headless Chromium).
import type { Harness } from './types';
import { bytesOf } from './bytes';
import { getBrowserGpu } from '../gpu/browser-gpu';
import { GpuRuntime } from '../gpu/runtime';
import { FileListSource } from '../model/io/browser-source';
import { loadModelFiles } from '../model/io/loader';
import { MemorySource } from '../model/io/memory-source';
import { readPeftAdapter } from '../model/io/peft';
import { GpuModel } from '../model/gpu/model';
import { loadTrainState } from '../train/checkpoint';
import { describeSftDataset, readSftJsonl } from '../train/data';
import { toBlobs } from '../train/peft-export';
import { planSftRun, resolveSftConfig, SftRun } from '../run/sft-run';

let rt: Promise<GpuRuntime> | undefined;


export function register(h: Harness): void {
  /**
   * files: name -> base64 bytes of the model; jsonl: the SFT data. Trains `steps` LoRA updates
   * (r=4, all projections) and returns the losses, the export's and checkpoint's file sizes.
   */
  h.sftFromFiles = async (files: Record<string, string>, jsonl: string, steps: number) => {
    rt ??= GpuRuntime.create(getBrowserGpu());
    const runtime = await rt;
    const list = Object.entries(files).map(([name, b64]) => new File([bytesOf(b64) as BlobPart], name));
    const m = await loadModelFiles(new FileListSource(list));
    const data = readSftJsonl(jsonl, 'dropped.jsonl', { tokenizer: m.tokenizer, maxLength: 64, vocabSize: m.config.vocabSize });
    const config = resolveSftConfig({ mode: 'lora', rank: 4, alpha: 8, lr: 1e-2, batchSize: data.examples.length, steps, schedule: 'constant', seed: 1, saveEvery: 3 },
      { examples: data.examples.length, cfg: m.config });
    const plan = planSftRun(m.config, config, data, { quant: 'none', quantEmbeddings: false });
    const peakBefore = runtime.memory().peak;
    const model = await GpuModel.load(runtime, m.config, { read: (n) => m.weights.read(n), has: (n) => m.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
    const run = await SftRun.create(runtime, model, { config, data, baseModelName: 'stories260K', tokenizer: m.tokenizer });
    const checkpoints: { step: number; files: Map<string, Uint8Array> }[] = [];
    const t0 = performance.now();
    const metrics = await run.run((e) => { if (e.kind === 'checkpoint' && e.files) checkpoints.push({ step: e.step, files: e.files }); });
    const seconds = (performance.now() - t0) / 1000;
    const exported = await run.exportFiles();
    const peak = runtime.memory().peak;
    await run.dispose();
    model.dispose();
    const blobs = toBlobs(exported.files);
    const adapter = await readPeftAdapter(new MemorySource(exported.files), m.config);
    const last = checkpoints.at(-1)!;
    const state = await loadTrainState(new MemorySource(last.files), m.config);
    const sizes = (f: Map<string, { size: number } | Uint8Array>) => Object.fromEntries([...f].map(([n, b]) => [n, b instanceof Uint8Array ? b.byteLength : b.size]));
    return {
      data: describeSftDataset(data),
      losses: metrics.map((x) => x.loss ?? NaN),
      gradNorms: metrics.map((x) => x.grad_norm ?? NaN),
      seconds,
      folder: exported.folder,
      blobs: sizes(blobs),
      checkpointSteps: checkpoints.map((c) => c.step),
      checkpoint: sizes(last.files),
      restoredStep: state.step,
      adapterPairs: adapter.pairs.size,
      planBytes: plan.total,
      // the runtime is shared with earlier calls: the peak of this run is measured only on a fresh page
      peakBytes: peakBefore === 0 ? peak : null,
    };
  };
}
