// Launcher for embed_bwd (shaders/embedding.wgsl), full mode: dwte [V, C] += dout rows scattered
// by token id, deterministic and without atomics. The ids are known on the host, so plan() sorts
// the rows by id into a CSR (one GPU buffer the plan owns); run() sums each id's rows in one
// workgroup. CPU twin: embedding_backward (src/reference/embedding.ts).
// Tested by tests/unit/gpu/embedding-backward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';

const WG = 64;
const MAX_X = 65535;

/** The rows of one step grouped by id; release() once the step that used it is submitted. */
export interface EmbeddingGradPlan {
  /** [U ids | U+1 starts | N rows] u32. */
  csr: GPUBuffer;
  /** Distinct ids. */
  U: number;
  /** Rows (tokens). */
  N: number;
  release(): void;
}

export class EmbeddingBackward {
  private readonly u = new Uint32Array(4);

  private constructor(private readonly rt: GpuRuntime, private readonly pipeline: Kernel, readonly V: number, readonly C: number) {}

  static async create(rt: GpuRuntime, V: number, C: number): Promise<EmbeddingBackward> {
    if (C % 4 !== 0) throw new ShapeError('embedding_backward', 'C (channels) a multiple of 4', `C=${C}`);
    return new EmbeddingBackward(rt, await rt.kernel({ shader: 'embedding', entry: 'embed_bwd', overrides: { WG } }), V, C);
  }

  /** Groups rows by id (ascending row order within an id) and uploads the CSR. */
  plan(ids: ArrayLike<number>): EmbeddingGradPlan {
    const N = ids.length;
    const byId = new Map<number, number[]>();
    for (let n = 0; n < N; n++) {
      const id = ids[n];
      if (!Number.isInteger(id) || id < 0 || id >= this.V) throw new ShapeError('embedding_backward', `token ids in [0, ${this.V})`, `id ${id} at row ${n}`);
      let rows = byId.get(id);
      if (!rows) byId.set(id, (rows = []));
      rows.push(n);
    }
    const U = byId.size;
    const csr = new Uint32Array(2 * U + 1 + N);
    let u = 0, o = 0;
    for (const [id, rows] of byId) {
      csr[u] = id;
      csr[U + u] = o;
      csr.set(rows, 2 * U + 1 + o);
      o += rows.length;
      u++;
    }
    csr[2 * U] = o;
    const rt = this.rt;
    const buf = rt.upload(csr, 'embedding_backward csr');
    let released = false;
    return { csr: buf, U, N, release: () => { if (!released) rt.release(buf); released = true; } };
  }

  /** Records dwte[ids[n], :] += dout[n, :] for every row of the plan. */
  run(plan: EmbeddingGradPlan, dout: GPUBuffer, dwte: GPUBuffer): void {
    const { V, C } = this;
    const { U, N } = plan;
    if (dout.size < N * C * 4) throw new ShapeError('embedding_backward', `dout of [${N}, ${C}] f32 (${N * C * 4} bytes)`, `${dout.size} bytes (${dout.label})`);
    if (dwte.size < V * C * 4) throw new ShapeError('embedding_backward', `dwte of [${V}, ${C}] f32 (${V * C * 4} bytes)`, `${dwte.size} bytes (${dwte.label})`);
    if (U === 0) return;
    this.u.set([U, C, N, V]);
    this.rt.dispatch(this.pipeline, [plan.csr, dout, dwte], this.u, { x: Math.min(U, MAX_X), y: Math.ceil(U / MAX_X) });
  }
}
