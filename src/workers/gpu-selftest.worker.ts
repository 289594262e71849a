// A dedicated Web Worker that runs the GPU matmul self-test, to show the same runtime and
// kernels work off the main thread. Protocol: {kind:'run', id} -> {kind:'result', id, result}
// or {kind:'error', id, message}. Exercised by tests/e2e/gpu.spec.ts through the harness.
import { getBrowserGpu } from '../gpu/browser-gpu';
import { GpuRuntime } from '../gpu/runtime';
import { runMatmulSelfTest, type SelfTestResult } from '../gpu/selftest';

export type SelfTestRequest = { kind: 'run'; id: number; M?: number; K?: number; N?: number };
export type SelfTestReply =
  | { kind: 'result'; id: number; result: SelfTestResult; adapter: string }
  | { kind: 'error'; id: number; message: string };

let runtime: Promise<GpuRuntime> | undefined;

self.onmessage = async (ev: MessageEvent<SelfTestRequest>) => {
  const req = ev.data;
  const reply = (m: SelfTestReply) => (self as unknown as Worker).postMessage(m);
  try {
    runtime ??= GpuRuntime.create(getBrowserGpu());
    const rt = await runtime;
    const result = await runMatmulSelfTest(rt, { M: req.M, K: req.K, N: req.N, iters: 2 });
    reply({ kind: 'result', id: req.id, result, adapter: `${rt.report.vendor} ${rt.report.architecture}` });
  } catch (e) {
    reply({ kind: 'error', id: req.id, message: (e as Error).message });
  }
};
