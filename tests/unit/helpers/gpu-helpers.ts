// Shared setup for GPU tests in Node: one GpuRuntime per vitest worker on Dawn (SwiftShader here),
// on the process's shared device (openNodeRuntime, as the commands the tests run in-process).
// The unit tests run with isolate: false (vite.config.ts), so the files of a worker share this
// runtime and, with those commands, its compiled pipelines; a runtime a test destroyed (or whose
// device was lost) is replaced by a fresh one.
import { openNodeRuntime } from '../../../src/gpu/node-runtime';
import type { GpuRuntime } from '../../../src/gpu/runtime';

let rt: Promise<GpuRuntime> | undefined;
let opened: GpuRuntime | undefined;

export function nodeRuntime(): Promise<GpuRuntime> {
  if (opened?.closed) rt = opened = undefined;
  rt ??= openNodeRuntime().then((r) => (opened = r));
  return rt;
}
