// Launcher for shaders/value_head.wgsl: PPO's value head v[N] = h[N, C] w[C] + b (one dispatch)
// and its backward: dh [N, C] (=, or += into the LM head's gradient on the same hidden state),
// dw [C] and db [1] (+=). CPU twin: src/reference/value_head.ts. Tested by tests/unit/reference/value-head.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';

const WG = 64;
const MAX_X = 65535;

export interface ValueHeadGradOptions {
  /** dh += instead of = (the hidden state also feeds the LM head). */
  accumulate?: boolean;
}

export class ValueHead {
  private readonly u = new Uint32Array(4);

  private constructor(private readonly rt: GpuRuntime, private readonly fwd: Kernel,
    private readonly dhPipe: Kernel, private readonly dwPipe: Kernel, readonly C: number) {}

  static async create(rt: GpuRuntime, C: number): Promise<ValueHead> {
    if (C % 4 !== 0) throw new ShapeError('value_head', 'C (channels) a multiple of 4', `C=${C}`);
    const [fwd, dh, dw] = await Promise.all(['value_fwd', 'value_dh', 'value_dw'].map((entry) => rt.kernel({ shader: 'value_head', entry, overrides: { WG } })));
    return new ValueHead(rt, fwd, dh, dw, C);
  }

  /** Records v[N] = h w + b. */
  forward(h: GPUBuffer, w: GPUBuffer, b: GPUBuffer, v: GPUBuffer, N: number): void {
    this.check('value_head', N, { h, w, b, v });
    this.u.set([N, this.C, 0, 0]);
    this.rt.dispatch(this.fwd, [h, w, b, v], this.u, { x: Math.min(N, MAX_X), y: Math.ceil(N / MAX_X) });
  }

  /** Records dh (=|+=) dv w, dw += dv^T h, db += sum dv. h is the forward input. */
  backward(dv: GPUBuffer, h: GPUBuffer, w: GPUBuffer, dh: GPUBuffer, dw: GPUBuffer, db: GPUBuffer, N: number, opts: ValueHeadGradOptions = {}): void {
    this.check('value_head_backward', N, { dv, h, w, dh, dw, db });
    this.u.set([N, this.C, opts.accumulate ? 1 : 0, 0]);
    const groups = Math.ceil((N * this.C) / 4 / WG);
    this.rt.dispatch(this.dhPipe, [dv, w, dh], this.u, { x: Math.min(groups, MAX_X), y: Math.ceil(groups / MAX_X) });
    this.rt.dispatch(this.dwPipe, [dv, h, dw, db], this.u, { x: Math.max(1, Math.ceil(this.C / 4 / WG)) });
  }

  private check(op: string, N: number, bufs: Record<string, GPUBuffer>): void {
    const C = this.C;
    const shapes: Record<string, [string, number]> = {
      h: [`[${N}, ${C}]`, N * C], dh: [`[${N}, ${C}]`, N * C], w: [`[${C}]`, C], dw: [`[${C}]`, C],
      b: ['[1]', 1], db: ['[1]', 1], v: [`[${N}]`, N], dv: [`[${N}]`, N],
    };
    for (const [name, buf] of Object.entries(bufs)) {
      const [shape, count] = shapes[name];
      if (buf.size < count * 4) throw new ShapeError(op, `${name} of ${shape} f32 (${count * 4} bytes)`, `${buf.size} bytes (${buf.label})`);
    }
  }
}
