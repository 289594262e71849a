// Waiting for a readback without stealing a CPU adapter's cores. In Node, dawn.node resolves a
// pending mapAsync by ticking the device from the event loop, again and again until it resolves:
// the main thread spins at 100 % of a core for the whole GPU wait. On SwiftShader the GPU *is* the
// CPU, so that spin takes a core from the kernels (measured: stories260K decode at batch 32, 31-40 ms
// a step with the spin, 17.5 ms when the host slept 15 ms first).
// Worse, the spin slows the work itself far more than one core's worth (decode at batch 32: 15 ms
// of work took 40 ms when the spin began after 10 ms). HostWait sleeps (a timer, no spinning)
// for about as long as the same kind of readback's work took before, then maps. "The same kind" =
// the same dispatches since the previous readback and about the same workgroups (a decode step at
// the same batch, a training pass of about the same rows: the same work recorded again).
// Browsers do not spin the page's thread for mapAsync, so GpuRuntime only uses this in Node.
// Tested by tests/unit/gpu/host-wait.test.ts.

/** A first sleep, from the shorter of the first two waits spent spinning (a spinning wait runs
 * about twice as long as the work; the very first may include compiling pipelines). */
const FIRST_FRACTION = 0.6;
/** After a sleep the work outlasted: sleep this much longer next time. */
const GROW = 1.2;
/** After a sleep that covered the work: try this much shorter next time... */
const SHRINK = 0.95;
/** ...but not below this much over the longest sleep known to be too short... */
const ABOVE_SHORT = 1.03;
/** ...which itself decays by this per readback, so the work getting faster is found again. */
const SHORT_DECAY = 0.995;
/** Extra wait after the sleep that still counts as "the work was done by then". */
const DONE_SLACK_MS = 1;
/** Waits shorter than this are not worth a timer (Node's timers have ~1 ms granularity). */
const MIN_SLEEP_MS = 2;
/** Kinds remembered (oldest dropped first). */
const MAX_KINDS = 512;

interface KindState {
  /** The shortest wait seen while not sleeping yet (the first two readbacks of a kind spin). */
  spun: number;
  /** The next sleep, ms (0 until two waits were seen). */
  sleep: number;
  /** The longest recent sleep the work outlasted (decaying), ms. */
  short: number;
}

export class HostWait {
  private readonly kinds = new Map<string, KindState>();
  /** Milliseconds slept so far (for benchmarks). */
  sleptMs = 0;

  constructor(private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms))) {}

  /** How long to sleep before mapping a readback of `kind`. */
  sleepFor(kind: string): number {
    const ms = this.kinds.get(kind)?.sleep ?? 0;
    return ms >= MIN_SLEEP_MS ? ms : 0;
  }

  /** Runs `map` (the mapAsync of a readback of `kind`), sleeping first when the kind is known. */
  async around<T>(kind: string, map: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    const ms = this.sleepFor(kind);
    if (ms > 0) {
      await this.sleep(ms);
      this.sleptMs += ms;
    }
    const t1 = performance.now();
    const out = await map();
    const t2 = performance.now();
    this.record(kind, ms, t2 - t0, t2 - t1);
    return out;
  }

  /**
   * Learns from a readback of `kind` that slept `slept` ms, was mapped `waited` ms after it began
   * and `afterSleep` ms after the sleep ended (a timer that fires late is not the work running
   * long). Sleeping a little too long costs that little; too short costs far more (the spin slows
   * the rest of the work), so the sleep sits just above the longest one known to be too short,
   * and never above this readback's whole wait (it cannot run away).
   */
  record(kind: string, slept: number, waited: number, afterSleep = waited): void {
    const st = this.kinds.get(kind);
    if (!st) {
      if (this.kinds.size >= MAX_KINDS) this.kinds.delete(this.kinds.keys().next().value as string);
      this.kinds.set(kind, { spun: waited, sleep: 0, short: 0 });
      return;
    }
    if (slept === 0 && st.sleep === 0) {
      st.spun = Math.min(st.spun, waited);
      st.sleep = FIRST_FRACTION * st.spun;
      return;
    }
    st.short *= SHORT_DECAY;
    if (slept > 0 && afterSleep <= DONE_SLACK_MS) {
      st.sleep = Math.max(st.short * ABOVE_SHORT, st.sleep * SHRINK);
    } else {
      st.short = Math.max(st.short, slept);
      st.sleep = Math.max(st.sleep, MIN_SLEEP_MS) * GROW;
    }
    st.sleep = Math.min(st.sleep, waited);
  }
}

/** True in Node (where dawn.node spins the main thread while a mapAsync is pending). */
export function hostSpinsOnMap(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string' && !('document' in globalThis);
}
