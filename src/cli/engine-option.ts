// The `--engine ours|ort` option of the CLI commands that run a model (eval, generate): our
// WebGPU engine on a model folder, or onnxruntime-web (wasm, in Node) on an ONNX export folder
// (`--onnx DIR`, or `--model DIR` holding onnx/model.onnx). Both come back as one
// DecoderEngine + tokenizer. Tested by tests/unit/ort/ort-engine.test.ts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DecoderEngine, EngineName } from '../model/engine';
import { gpuEngine } from '../model/gpu/engine';
import { NodeDirSource } from '../model/io/node-source';
import type { Tokenizer } from '../model/tokenizer';
import type { ModelConfig } from '../model/types';
import { configureOrt } from '../ort/env';
import { openOnnxFolder } from '../ort/folder';
import { getString, type ParsedArgs } from '../util/args';
import type { CliModel } from '../model/node-load';

export const ENGINE_OPTIONS = `  --engine ours|ort       ours: our WebGPU engine (default); ort: onnxruntime-web (wasm) on an
                          ONNX export (\`export --format onnx\`), same sampling and greedy tokens
  --onnx DIR              the ONNX export folder for --engine ort (default: --model, when it
                          holds onnx/model.onnx)
  --onnx-dtype f32|f16    which graph of the export (default f32)`;

export interface CliEngine {
  engine: DecoderEngine;
  tokenizer: Tokenizer;
  config: ModelConfig;
  close(): Promise<void>;
}

export function engineName(args: ParsedArgs): EngineName {
  const e = getString(args, 'engine', 'ours');
  if (e !== 'ours' && e !== 'ort') throw new Error(`--engine must be ours or ort, got "${e}"`);
  return e;
}

/**
 * The engine the command runs on. `modelDir` is the command's model folder (--model or the
 * config's model.path), used as the ONNX folder when --onnx is not given; `loadOurs` loads our
 * engine (only called for --engine ours).
 */
export async function openCliEngine(args: ParsedArgs, modelDir: string | undefined, loadOurs: () => Promise<CliModel>, log: (s: string) => void): Promise<CliEngine> {
  if (engineName(args) === 'ours') {
    if (getString(args, 'onnx')) throw new Error('--onnx is for --engine ort; add --engine ort (or drop --onnx)');
    const m = await loadOurs(); // an --adapter comes merged into the weights (loadCliModel)
    return { engine: gpuEngine(m.rt, m.model), tokenizer: m.loaded.tokenizer, config: m.loaded.config, close: async () => m.model.dispose() };
  }
  if (getString(args, 'adapter')) {
    throw new Error('--engine ort runs an ONNX export, which has the adapter merged in: export with `export --format onnx --model BASE --adapter DIR --out D`, then pass --onnx D (without --adapter)');
  }
  const dir = getString(args, 'onnx') ?? modelDir;
  if (!dir) throw new Error('--engine ort needs the ONNX export folder: --onnx DIR (write one with `npm run cli -- export --model PATH --format onnx --out DIR`)');
  if (!existsSync(join(dir, 'onnx'))) {
    throw new Error(`${dir} has no onnx/ folder: --engine ort runs an ONNX export; write one with \`npm run cli -- export --model ${dir} --format onnx --out DIR\` and pass --onnx DIR`);
  }
  const dtype = getString(args, 'onnx-dtype', 'f32');
  if (dtype !== 'f32' && dtype !== 'f16') throw new Error(`--onnx-dtype must be f32 or f16, got "${dtype}"`);
  configureOrt({ numThreads: 1 });
  const f = await openOnnxFolder(new NodeDirSource(dir), { backend: 'wasm', dtype });
  const c = f.config;
  log(`engine: ${f.engine.label} on ${dir} (${dtype}): ${c.architecture} L=${c.numLayers} C=${c.hiddenSize} V=${c.vocabSize}\n`);
  return { engine: f.engine, tokenizer: f.tokenizer, config: c, close: () => f.engine.release() };
}
