// User-facing WebGPU errors: each says what went wrong and what to do about it.
// Thrown by the runtime (device.ts, pool.ts, browser-gpu.ts, node-gpu.ts) and shown by the UI.

/** Base class so callers can tell GPU problems from other failures. */
export class GpuError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GpuError';
  }
}

/** WebGPU is missing in this browser or Node process. `help` lists the steps to enable it. */
export class WebGpuUnavailableError extends GpuError {
  constructor(message: string, readonly help: string[]) {
    super(`${message}\n${help.map((h) => `- ${h}`).join('\n')}`);
    this.name = 'WebGpuUnavailableError';
  }
}

/** An allocation the device refused or that exceeds its limits. */
export class GpuOutOfMemoryError extends GpuError {
  constructor(label: string, bytes: number, detail: string) {
    super(`GPU out of memory allocating "${label}" (${formatBytes(bytes)}): ${detail}`);
    this.name = 'GpuOutOfMemoryError';
  }
}

/** The device was lost (driver reset, tab in background too long, out of memory...). */
export class GpuDeviceLostError extends GpuError {
  constructor(reason: string, detail: string) {
    super(`The GPU device was lost (${reason}): ${detail.replace(/\.+$/, '') || 'no detail from the driver'}. ` +
      'Reload the page or press Restart engine (studio), or restart the command, to get a new device; if it repeats, lower the ' +
      'batch size or model size, and close other GPU-heavy tabs.');
    this.name = 'GpuDeviceLostError';
  }
}

/** A launcher was called with tensors of the wrong shape. */
export class ShapeError extends GpuError {
  constructor(op: string, expected: string, got: string) {
    super(`${op}: expected ${expected}, got ${got}`);
    this.name = 'ShapeError';
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}
