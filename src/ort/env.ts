// onnxruntime-web set-up shared by the browser and Node: where its .wasm/.mjs files are served
// (the studio serves them itself under <base>ort/, see src/server/vite-plugins.ts; Node reads them
// from the package) and how many wasm threads to use. Exercised by tests/unit/ort/ort-decoder.test.ts
// and tests/e2e/ort.spec.ts.
import * as ort from 'onnxruntime-web';

export type OrtBackend = 'wasm' | 'webgpu';

export interface OrtEnvOptions {
  /** URL prefix of ort-wasm-*.{mjs,wasm} (browser); unset in Node. */
  wasmPaths?: string;
  /** wasm threads (multi-threading needs a cross-origin isolated page); default 1. */
  numThreads?: number;
}

// Our engine and ORT's WebGPU EP in one page: separate devices, by construction. ORT 1.30's
// WebGPU backend (JSEP) always asks its adapter for a device of its own at the first WebGPU
// session and then defines `env.webgpu.device` read-only; a device assigned there beforehand is
// ignored (so no device is handed to it here). Neither engine waits on the other's queue or
// mapAsync. What looked like a stall (our first GPU step after an ORT WebGPU session "did not
// finish within a minute") is the first use of each device on the same two CPU cores under
// SwiftShader: our model load with kernel tuning takes 41-49 s and ORT's first run compiles its
// shaders in 20-33 s (measured with agent-tiny, six helpers sharing the machine); no ordering
// is needed. tests/e2e/ort-interleave.spec.ts interleaves both in either order.

export function configureOrt(opts: OrtEnvOptions = {}): typeof ort {
  if (opts.wasmPaths) ort.env.wasm.wasmPaths = opts.wasmPaths;
  ort.env.wasm.numThreads = opts.numThreads ?? 1;
  ort.env.logLevel = 'error';
  return ort;
}

/** True when this JavaScript context can run the WebGPU execution provider. */
export async function webgpuAvailable(): Promise<boolean> {
  const gpu = (globalThis.navigator as (Navigator & { gpu?: GPU }) | undefined)?.gpu;
  if (!gpu) return false;
  try {
    return (await gpu.requestAdapter()) !== null;
  } catch {
    return false;
  }
}

/** The backend to use: WebGPU where available (browser), wasm otherwise. */
export async function defaultBackend(): Promise<OrtBackend> {
  const isNode = typeof process !== 'undefined' && Boolean(process.versions?.node) && typeof window === 'undefined';
  return !isNode && (await webgpuAvailable()) ? 'webgpu' : 'wasm';
}
