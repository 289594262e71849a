// Compute pipelines cached by an explicit key (shader, entry point, override constants), with
// WGSL compile errors reported by file and line. Bind groups cached by pipeline + buffers.
// Exercised through GpuRuntime by every kernel test.
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

export class PipelineCache {
  private readonly modules = new Map<string, Promise<GPUShaderModule>>();
  /** Modules that loaded and compiled without errors, for getNow. */
  private readonly loaded = new Map<string, GPUShaderModule>();
  private readonly pipelines = new Map<string, Promise<GPUComputePipeline>>();
  /** Pipelines built so far, by key, for getNow. */
  private readonly built = new Map<string, GPUComputePipeline>();
  private readonly bindGroups = new Map<string, GPUBindGroup>();
  private readonly bufferIds = new WeakMap<GPUBuffer, number>();
  private readonly pipelineIds = new WeakMap<GPUComputePipeline, number>();
  private nextId = 1;
  compiled = 0;

  constructor(private readonly device: GPUDevice) {}

  get(spec: KernelSpec): Promise<GPUComputePipeline> {
    const key = kernelKey(spec);
    let p = this.pipelines.get(key);
    if (!p) {
      p = this.build(spec, key);
      this.pipelines.set(key, p);
      p.catch(() => this.pipelines.delete(key));
    }
    return p;
  }

  /**
   * The pipeline of `spec` at once: cached, or built now when its shader module is already loaded
   * (an earlier get of any kernel of that shader); null otherwise. For kernels built on first use
   * inside a synchronous run (the decode linears' per-row-count pipelines). A build error here
   * reaches the device's uncaptured-error listeners (GpuRuntime.onError), not the caller.
   */
  getNow(spec: KernelSpec): GPUComputePipeline | null {
    const key = kernelKey(spec);
    const hit = this.built.get(key);
    if (hit) return hit;
    const module = this.loaded.get(spec.shader);
    if (!module) return null;
    const pipeline = this.create(spec, key, module);
    this.pipelines.set(key, Promise.resolve(pipeline));
    return pipeline;
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

  private module(name: string): Promise<GPUShaderModule> {
    let m = this.modules.get(name);
    if (!m) {
      m = (async () => {
        const code = await loadShaderSource(name);
        const mod = this.device.createShaderModule({ label: `shaders/${name}.wgsl`, code });
        const info = await mod.getCompilationInfo();
        const errors = info.messages.filter((msg) => msg.type === 'error');
        if (errors.length) {
          throw new GpuError(`WGSL errors in shaders/${name}.wgsl:\n` +
            errors.map((e) => `  line ${e.lineNum}:${e.linePos}: ${e.message}`).join('\n'));
        }
        this.loaded.set(name, mod);
        return mod;
      })();
      this.modules.set(name, m);
      m.catch(() => this.modules.delete(name));
    }
    return m;
  }

  private async build(spec: KernelSpec, key: string): Promise<GPUComputePipeline> {
    const module = await this.module(spec.shader);
    this.device.pushErrorScope('validation');
    const pipeline = this.create(spec, key, module);
    const err = await this.device.popErrorScope();
    if (err) {
      this.built.delete(key);
      throw new GpuError(`Cannot build pipeline ${key}: ${err.message}`);
    }
    return pipeline;
  }

  private create(spec: KernelSpec, key: string, module: GPUShaderModule): GPUComputePipeline {
    const pipeline = this.device.createComputePipeline({
      label: key,
      layout: 'auto',
      compute: { module, entryPoint: spec.entry, constants: spec.overrides ?? {} },
    });
    this.compiled++;
    this.built.set(key, pipeline);
    return pipeline;
  }
}
