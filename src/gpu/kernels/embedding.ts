// Launcher for shaders/embedding.wgsl: gathers N rows of the token embedding table (f32, or NF4
// from Nf4Quantizer) into out [N, C]. CPU twin: src/reference/embedding.ts.
// Tested by tests/unit/gpu/embedding-forward.test.ts.
import type { Kernel } from '../pipelines';
import type { GpuRuntime } from '../runtime';
import { ShapeError } from '../errors';
import type { Nf4Weight } from './nf4';

export type EmbeddingTable = { format: 'f32'; wte: GPUBuffer } | { format: 'nf4'; q: Nf4Weight };

const WG = 64;

export class Embedding {
  private readonly uniforms = new Uint32Array(4);

  private constructor(private readonly rt: GpuRuntime, private readonly pipeline: Kernel,
    readonly table: EmbeddingTable, readonly V: number, readonly C: number) {}

  /** table is [V, C] row-major; C must be a multiple of 4. */
  static async create(rt: GpuRuntime, table: EmbeddingTable, V: number, C: number): Promise<Embedding> {
    if (C % 4 !== 0) throw new ShapeError('embedding', 'C (channels) a multiple of 4', `C=${C}`);
    if (table.format === 'f32' && table.wte.size < V * C * 4) {
      throw new ShapeError('embedding', `wte of [${V}, ${C}] f32 (${V * C * 4} bytes)`, `${table.wte.size} bytes (${table.wte.label})`);
    }
    if (table.format === 'nf4' && (table.q.rows !== V || table.q.cols !== C)) {
      throw new ShapeError('embedding', `NF4 table of [${V}, ${C}]`, `[${table.q.rows}, ${table.q.cols}]`);
    }
    const pipeline = await rt.kernel({ shader: 'embedding', entry: table.format === 'f32' ? 'embed_f32' : 'embed_nf4', overrides: { WG } });
    return new Embedding(rt, pipeline, table, V, C);
  }

  /** Records out[n, :] = table[ids[n], :] for n < N (ids >= V give zeros). */
  run(ids: GPUBuffer, out: GPUBuffer, N: number): void {
    const { C, V } = this;
    if (ids.size < N * 4) throw new ShapeError('embedding', `ids of [${N}] u32 (${N * 4} bytes)`, `${ids.size} bytes (${ids.label})`);
    if (out.size < N * C * 4) throw new ShapeError('embedding', `out of [${N}, ${C}] f32 (${N * C * 4} bytes)`, `${out.size} bytes (${out.label})`);
    this.uniforms.set([N, C, V, 0]);
    const t = this.table;
    const bufs = t.format === 'f32' ? [ids, t.wte, out] : [ids, t.q.codes, t.q.absmax, out];
    this.rt.dispatch(this.pipeline, bufs, this.uniforms, { x: Math.ceil(C / 4 / WG), y: N });
  }
}
