// Shared setup for GPU tests in Node: one GpuRuntime per vitest worker on Dawn (SwiftShader here).
// The unit tests run with isolate: false (vite.config.ts), so the files of a worker share this
// runtime and its compiled pipelines; a runtime a test destroyed (or whose device was lost) is
// replaced by a fresh one.
import { getNodeGpu } from '../../../src/gpu/node-gpu';
import { GpuRuntime } from '../../../src/gpu/runtime';

let rt: Promise<GpuRuntime> | undefined;
let opened: GpuRuntime | undefined;

export function nodeRuntime(): Promise<GpuRuntime> {
  if (opened?.closed) rt = opened = undefined;
  rt ??= getNodeGpu().then(({ gpu }) => GpuRuntime.create(gpu)).then((r) => (opened = r));
  return rt;
}
