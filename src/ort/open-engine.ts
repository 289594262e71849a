// The decoder choice of the playground and any other generation UI: one call that gives a
// DecoderEngine for "ours" (a loaded GpuModel on its runtime) or "ort" (an ONNX export folder on
// onnxruntime-web's WebGPU or wasm EP), to pass to generateOn / runEngineRollout / evaluate.
// Framework-free; exercised by the browser harness (src/harness/ort.harness.ts, tests/e2e/ort.spec.ts).
import type { OnnxDtype } from '../export/onnx/graph';
import type { GpuRuntime } from '../gpu/runtime';
import type { DecoderEngine } from '../model/engine';
import { gpuEngine } from '../model/gpu/engine';
import type { GpuModel } from '../model/gpu/model';
import type { FileSource } from '../model/io/source';
import type { OrtBackend } from './env';
import { openOnnxFolder } from './folder';

export type EngineChoice =
  | { engine: 'ours'; rt: GpuRuntime; model: GpuModel }
  | { engine: 'ort'; backend: OrtBackend; onnx: FileSource; dtype?: OnnxDtype };

export interface OpenedEngine {
  engine: DecoderEngine;
  /** Frees what this call created (the ORT session; our model stays with its owner). */
  release(): Promise<void>;
}

export async function openEngine(choice: EngineChoice): Promise<OpenedEngine> {
  if (choice.engine === 'ours') return { engine: gpuEngine(choice.rt, choice.model), release: () => Promise.resolve() };
  const f = await openOnnxFolder(choice.onnx, { backend: choice.backend, dtype: choice.dtype });
  return { engine: f.engine, release: () => f.engine.release() };
}
