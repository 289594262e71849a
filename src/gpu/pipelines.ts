// Compute kernels cached by an explicit key (shader, entry point, override constants), with
// WGSL compile errors reported by file and line. A kernel's shader module is loaded and checked
// when it is asked for; its pipeline is built on its first dispatch (or at once by `build`):
// compiling is the slow part on a CPU adapter (0.01-1.5 s per pipeline on SwiftShader), and a
// layer asks for the kernels of every shape it may run while a run dispatches a few of them.
// Bind groups cached by pipeline + buffers. Exercised through GpuRuntime by every kernel test.
import { loadShaderSource } from './shaders';
import { GpuError } from './errors';

export interface KernelSpec {
  /** File name in shaders/ without .wgsl. */
  shader: string;
  /** Entry point in that file. */
  entry: string;
  /** Values for the shader's `override` constants. */
  overrides?: Record<string, number>;
}

export function kernelKey(spec: KernelSpec): string {
  const o = spec.overrides ? Object.entries(spec.overrides).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(',') : '';
  return `${spec.shader}:${spec.entry}:${o}`;
}

/**
 * One kernel: a checked shader module, entry point and override values; `pipeline` builds the
 * compute pipeline the first time it is read (a build error then reaches the device's
 * uncaptured-error listeners, GpuRuntime.onError, naming the kernel's key).
 */
export class Kernel {
  private built: GPUComputePipeline | null = null;

  constructor(readonly key: string, private readonly create: () => GPUComputePipeline) {}

  get pipeline(): GPUComputePipeline {
    return (this.built ??= this.create());
  }

  /** Whether the pipeline has been built. */
  get isBuilt(): boolean {
    return this.built !== null;
  }
}

interface LoadedModule { module: GPUShaderModule; entries: Set<string>; overrides: Set<string> }

export class PipelineCache {
  private readonly modules = new Map<string, Promise<LoadedModule>>();
  /** Modules that loaded and compiled without errors, for getNow. */
  private readonly loaded = new Map<string, LoadedModule>();
  private readonly kernels = new Map<string, Kernel>();
  private readonly bindGroups = new Map<string, GPUBindGroup>();
  private readonly bufferIds = new WeakMap<GPUBuffer, number>();
  private readonly pipelineIds = new WeakMap<GPUComputePipeline, number>();
  private nextId = 1;
  /** Pipelines built so far. */
  compiled = 0;

  constructor(private readonly device: GPUDevice) {}

  /**
   * The kernel of `spec` once its shader module is loaded and compiled; its entry point and
   * override names are checked against the WGSL source. The pipeline is built on first use.
   */
  async get(spec: KernelSpec): Promise<Kernel> {
    return this.kernel(spec, await this.module(spec.shader));
  }

  /** Keys of the kernels whose pipelines have been built, in the order they were asked for. */
  builtKeys(): string[] {
    return [...this.kernels.values()].filter((k) => k.isBuilt).map((k) => k.key);
  }

  /** As get, with the pipeline built now: a build error rejects here instead of reaching the device's listeners. */
  async build(spec: KernelSpec): Promise<Kernel> {
    const kernel = await this.get(spec);
    if (kernel.isBuilt) return kernel;
    this.device.pushErrorScope('validation');
    void kernel.pipeline;
    const err = await this.device.popErrorScope();
    if (err) {
      this.kernels.delete(kernel.key);
      throw new GpuError(`Cannot build pipeline ${kernel.key}: ${err.message}`);
    }
    return kernel;
  }

  /**
   * The kernel of `spec` at once when its shader module is already loaded (an earlier get of any
   * kernel of that shader); null otherwise. For kernels first asked for inside a synchronous run.
   */
  getNow(spec: KernelSpec): Kernel | null {
    const mod = this.loaded.get(spec.shader);
    return mod ? this.kernel(spec, mod) : null;
  }

  /** A bind group for `buffers` in binding order 0..n-1 (group 0), cached. */
  bindGroup(pipeline: GPUComputePipeline, buffers: GPUBuffer[]): GPUBindGroup {
    let key = `${this.idOf(this.pipelineIds, pipeline)}`;
    for (const b of buffers) key += `:${this.idOf(this.bufferIds, b)}`;
    let bg = this.bindGroups.get(key);
    if (!bg) {
      if (this.bindGroups.size > 8192) this.bindGroups.clear();
      bg = this.device.createBindGroup({
        label: `${pipeline.label} bindings`,
        layout: pipeline.getBindGroupLayout(0),
        entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
      });
      this.bindGroups.set(key, bg);
    }
    return bg;
  }

  private idOf<T extends object>(map: WeakMap<T, number>, o: T): number {
    let id = map.get(o);
    if (id === undefined) {
      id = this.nextId++;
      map.set(o, id);
    }
    return id;
  }

  private kernel(spec: KernelSpec, mod: LoadedModule): Kernel {
    const key = kernelKey(spec);
    let k = this.kernels.get(key);
    if (k) return k;
    const file = `shaders/${spec.shader}.wgsl`;
    if (!mod.entries.has(spec.entry)) {
      throw new GpuError(`Cannot build pipeline ${key}: ${file} has no @compute entry point "${spec.entry}" (it has ${[...mod.entries].join(', ') || 'none'})`);
    }
    const unknown = Object.keys(spec.overrides ?? {}).filter((o) => !mod.overrides.has(o));
    if (unknown.length) {
      throw new GpuError(`Cannot build pipeline ${key}: ${file} declares no override ${unknown.join(', ')} (it declares ${[...mod.overrides].join(', ') || 'none'})`);
    }
    k = new Kernel(key, () => {
      const pipeline = this.device.createComputePipeline({
        label: key,
        layout: 'auto',
        compute: { module: mod.module, entryPoint: spec.entry, constants: spec.overrides ?? {} },
      });
      this.compiled++;
      return pipeline;
    });
    this.kernels.set(key, k);
    return k;
  }

  private module(name: string): Promise<LoadedModule> {
    let m = this.modules.get(name);
    if (!m) {
      m = (async () => {
        const code = await loadShaderSource(name);
        const module = this.device.createShaderModule({ label: `shaders/${name}.wgsl`, code });
        const info = await module.getCompilationInfo();
        const errors = info.messages.filter((msg) => msg.type === 'error');
        if (errors.length) {
          throw new GpuError(`WGSL errors in shaders/${name}.wgsl:\n` +
            errors.map((e) => `  line ${e.lineNum}:${e.linePos}: ${e.message}`).join('\n'));
        }
        const loaded: LoadedModule = { module, entries: declared(code, COMPUTE_ENTRY), overrides: declared(code, OVERRIDE) };
        this.loaded.set(name, loaded);
        return loaded;
      })();
      this.modules.set(name, m);
      m.catch(() => this.modules.delete(name));
    }
    return m;
  }
}

/** `@compute @workgroup_size(...) fn name(` (attributes in any order, across lines). */
const COMPUTE_ENTRY = /@compute\b[^{;]*?\bfn\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;
/** `override NAME` declarations (with or without @id, a type or a default). */
const OVERRIDE = /\boverride\s+([A-Za-z_][A-Za-z0-9_]*)/g;

function declared(code: string, re: RegExp): Set<string> {
  const stripped = code.replace(/\/\/[^\n]*/g, '');
  return new Set([...stripped.matchAll(re)].map((m) => m[1]));
}
