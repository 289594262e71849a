// Shared setup for GPU tests in Node: one GpuRuntime per test file on Dawn (SwiftShader here).
import { getNodeGpu } from '../../../src/gpu/node-gpu';
import { GpuRuntime } from '../../../src/gpu/runtime';

let rt: Promise<GpuRuntime> | undefined;

export function nodeRuntime(): Promise<GpuRuntime> {
  rt ??= getNodeGpu().then(({ gpu }) => GpuRuntime.create(gpu));
  return rt;
}
