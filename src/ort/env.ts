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
  /**
   * Our engine's GPUDevice, for the WebGPU EP to share (set before the first WebGPU session).
   * With a second device of its own, our engine's work stalled once ORT's session existed.
   */
  webgpuDevice?: GPUDevice;
}

export function configureOrt(opts: OrtEnvOptions = {}): typeof ort {
  if (opts.wasmPaths) ort.env.wasm.wasmPaths = opts.wasmPaths;
  ort.env.wasm.numThreads = opts.numThreads ?? 1;
  ort.env.logLevel = 'error';
  if (opts.webgpuDevice) ort.env.webgpu.device = opts.webgpuDevice;
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
