// GPU time per phase of a step (forward, loss, backward, optimizer) from timestamp queries: a
// phase mark is an empty compute pass whose beginning is stamped, so marks cost no dispatch and
// no sync; a phase lasts from its mark to the next one (a null mark ends it). The stamps are
// resolved into a buffer the caller copies into its one readback per step (GpuRuntime.readParts).
// Exercised by tests/unit/rl/rl-grpo-gpu-path.test.ts and the GRPO step (src/rl/grpo-trainer.ts).

export class PhaseTimer {
  private readonly querySet: GPUQuerySet;
  /** QUERY_RESOLVE | COPY_SRC: [capacity] u64 nanoseconds. */
  readonly resolveBuf: GPUBuffer;
  private labels: (string | null)[] = [];

  /** `capacity`: most marks between two resets (marks past it are dropped). */
  constructor(device: GPUDevice, readonly capacity = 512) {
    if (!device.features.has('timestamp-query')) throw new Error('PhaseTimer: the device has no timestamp-query feature');
    this.querySet = device.createQuerySet({ label: 'phase timestamps', type: 'timestamp', count: capacity });
    const u = (globalThis as unknown as { GPUBufferUsage: GPUBufferUsage }).GPUBufferUsage;
    this.resolveBuf = device.createBuffer({ label: 'phase timestamps resolve', size: 8 * capacity, usage: u.QUERY_RESOLVE | u.COPY_SRC });
  }

  /** Marks recorded since the last reset. */
  get count(): number {
    return this.labels.length;
  }

  /** Records a mark starting phase `label` (null: the current phase ends) as an empty stamped pass. */
  mark(encoder: GPUCommandEncoder, label: string | null): void {
    const i = this.labels.length;
    if (i >= this.capacity) return;
    this.labels.push(label);
    encoder.beginComputePass({ label: `phase ${label ?? 'end'}`, timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: i } }).end();
  }

  /** Records the resolve of the marks so far into resolveBuf (8 * count bytes). */
  resolve(encoder: GPUCommandEncoder): number {
    const n = this.labels.length;
    if (n > 0) encoder.resolveQuerySet(this.querySet, 0, n, this.resolveBuf, 0);
    return 8 * n;
  }

  /**
   * Milliseconds per phase label from the resolved stamps (u64 ns, as read back): each mark's
   * phase lasts until the next mark; then the marks are cleared.
   */
  totals(stamps: BigUint64Array): Record<string, number> {
    const out: Record<string, number> = {};
    const n = Math.min(this.labels.length, stamps.length);
    for (let i = 0; i + 1 < n; i++) {
      const label = this.labels[i];
      if (label === null) continue;
      const ns = Number(stamps[i + 1] - stamps[i]);
      out[label] = (out[label] ?? 0) + Math.max(0, ns) / 1e6;
    }
    this.labels = [];
    return out;
  }

  reset(): void {
    this.labels = [];
  }

  destroy(): void {
    this.querySet.destroy();
    this.resolveBuf.destroy();
  }
}
