// The GPU runtime of a Node command (CLI, serve, in-process runs): the process opens Dawn's device
// once and every command run in it gets a runtime of its own on that device (GpuRuntime.sibling:
// own buffer pool, counters and encoder; the same compiled pipelines). A second run in one
// process (serve's jobs, a resumed run, the unit tests' in-process commands) so skips the pipeline
// builds the first paid: seconds per model on SwiftShader. A lost device is replaced at the next
// open. Tested by tests/unit/gpu/node-runtime.test.ts.
import { getNodeGpu } from './node-gpu';
import { GpuRuntime } from './runtime';

/** Holds the process's device open (no work of its own) while commands come and go. */
let anchor: Promise<GpuRuntime> | null = null;

/** A new runtime on this process's shared device (opened on first use, or again after a loss). */
export async function openNodeRuntime(): Promise<GpuRuntime> {
  for (;;) {
    const pending = (anchor ??= getNodeGpu().then(({ gpu }) => GpuRuntime.create(gpu)));
    let rt: GpuRuntime;
    try {
      rt = await pending;
    } catch (err) {
      if (anchor === pending) anchor = null; // no device this time: the next call tries again
      throw err;
    }
    if (!rt.closed) return rt.sibling();
    if (anchor === pending) anchor = null; // lost: open a new device
  }
}
