// The workgroup grid of a flat kernel: `n` invocations in workgroups of `wg`, wrapped into y past
// the device's per-dimension limit (the kernel's index is gid.x + gid.y * num_workgroups.x * wg).
export function flatGrid(n: number, wg: number, maxPerDimension: number): { x: number; y: number } {
  const groups = Math.max(1, Math.ceil(n / wg));
  const x = Math.min(groups, maxPerDimension);
  return { x, y: Math.ceil(groups / x) };
}
