// Our WebGPU engine behind the engine-agnostic DecoderEngine (src/model/engine.ts): each
// stepper is a DecodeSession (batched KV cache, sampling on the GPU). Used by generate(), the
// agent rollouts and evaluation; compared with onnxruntime-web by tests/unit/ort/ort-engine.test.ts.
import type { GpuRuntime } from '../../gpu/runtime';
import type { DecoderEngine, DecodeStepper } from '../engine';
import type { GpuModel } from './model';
import { DecodeSession } from './session';

export function gpuEngine(rt: GpuRuntime, model: GpuModel): DecoderEngine {
  return {
    label: 'ours (WebGPU)',
    vocabSize: model.cfg.vocabSize,
    maxPositions: model.cfg.maxPositions,
    eosTokenIds: model.cfg.eosTokenIds,
    open: (slots: number, maxTokens: number): DecodeStepper => new DecodeSession(rt, model, slots, maxTokens),
  };
}
