// Harness functions for the GPU runtime: the matmul self-test on the main thread and inside
// a dedicated Web Worker. Used by tests/e2e/gpu.spec.ts.
import type { Harness } from './types';
import { getBrowserGpu } from '../gpu/browser-gpu';
import { GpuRuntime } from '../gpu/runtime';
import { runMatmulSelfTest } from '../gpu/selftest';
import type { SelfTestReply } from '../workers/gpu-selftest.worker';

let rt: Promise<GpuRuntime> | undefined;

export function register(h: Harness): void {
  h.gpuSelfTest = async () => {
    rt ??= GpuRuntime.create(getBrowserGpu());
    return runMatmulSelfTest(await rt, { M: 64, K: 64, N: 64, iters: 2 });
  };
  h.gpuSelfTestInWorker = () =>
    new Promise((resolve, reject) => {
      const w = new Worker(new URL('../workers/gpu-selftest.worker.ts', import.meta.url), { type: 'module' });
      w.onmessage = (ev: MessageEvent<SelfTestReply>) => {
        w.terminate();
        if (ev.data.kind === 'result') resolve(ev.data);
        else reject(new Error(ev.data.message));
      };
      w.onerror = (e) => reject(new Error(`worker failed: ${e.message}`));
      w.postMessage({ kind: 'run', id: 1, M: 64, K: 64, N: 64 });
    });
}
