// Waiting for the GPU in Node without starving a CPU adapter. dawn.node resolves a pending
// mapAsync / onSubmittedWorkDone by calling the global setImmediate again and again, each time
// processing the device's events: the main thread spins at 100 % of a core for the whole wait
// (about 100,000 calls in a 1.7 s wait). On SwiftShader the GPU *is* the CPU, and that spin slows
// the kernels far more than one core's worth: five 256 x 512 x 2048 matmuls took 1.3-1.7 s with
// the spin and 0.6 s with it throttled. While GpuRuntime waits, gpuWait() therefore swaps the
// global setImmediate for one that polls every millisecond (a timer), and restores it after;
// at most about 1 ms of latency per readback. Node's own modules keep their own reference to
// setImmediate, so only code that calls the global one during a GPU wait sees the 1 ms delay.
// Browsers never spin the page for a readback: there this is a plain await.
// Tested by tests/unit/gpu/node-wait.test.ts.

// Typed here rather than through @types/node: this module is also part of the browser build.
type Immediate = (fn: (...args: unknown[]) => void, ...args: unknown[]) => unknown;
const g = globalThis as unknown as { setImmediate?: Immediate; process?: { versions?: { node?: string } } };

let depth = 0;
let saved: Immediate | null = null;

const throttled: Immediate = (fn, ...args) => setTimeout(() => fn(...args), 1);

/** True in Node (where dawn.node polls the device through setImmediate while a wait is pending). */
export function hostSpinsOnWait(): boolean {
  return typeof g.process?.versions?.node === 'string' && typeof g.setImmediate === 'function' && !('document' in globalThis);
}

const spins = hostSpinsOnWait();

/** Runs `wait` (a mapAsync or onSubmittedWorkDone) with dawn.node's polling throttled to 1 ms. */
export async function gpuWait<T>(wait: () => Promise<T>): Promise<T> {
  if (!spins) return wait();
  if (depth++ === 0) {
    saved = g.setImmediate ?? null;
    g.setImmediate = throttled;
  }
  try {
    return await wait();
  } finally {
    if (--depth === 0 && saved) {
      g.setImmediate = saved;
      saved = null;
    }
  }
}

/** True while a GPU wait has the global setImmediate throttled (for tests). */
export function gpuWaitActive(): boolean {
  return depth > 0;
}
