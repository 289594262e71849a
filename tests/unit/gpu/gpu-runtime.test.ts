// The WebGPU runtime in Node (Dawn on SwiftShader here): device limits raised, features
// reported, buffer pool reuse and byte counters, pipeline cache keys, readback, clear errors.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../helpers/gpu-helpers';
import { getNodeGpu } from '../../../src/gpu/node-gpu';
import { GpuRuntime } from '../../../src/gpu/runtime';
import { kernelKey } from '../../../src/gpu/pipelines';
import { GpuOutOfMemoryError, GpuError } from '../../../src/gpu/errors';
import { runMatmulSelfTest } from '../../../src/gpu/selftest';
import { getTuning } from '../../../src/gpu/tuning';

/** A runtime on a device of its own (not the fork's shared one: no other test's pipelines on it). */
const ownRuntime = async () => GpuRuntime.create((await getNodeGpu()).gpu);

describe('GpuRuntime', () => {
  it('opens a device with the adapter limits raised and reports it', async () => {
    const rt = await nodeRuntime();
    const r = rt.report;
    console.log(`adapter: ${r.vendor} ${r.architecture} features=${r.features.join(',')}`);
    expect(r.architecture).not.toBe('');
    // SwiftShader offers 1 GiB bindings; the spec default is 128 MiB: the runtime must raise it.
    expect(r.limits.maxStorageBufferBindingSize).toBeGreaterThan(128 * 1024 * 1024);
    expect(r.limits.maxComputeWorkgroupStorageSize).toBeGreaterThanOrEqual(16384);
    expect(rt.device.limits.maxStorageBufferBindingSize).toBe(r.limits.maxStorageBufferBindingSize);
    // Every optional feature the adapter has is enabled on the device.
    for (const f of ['shader-f16', 'subgroups', 'timestamp-query'] as GPUFeatureName[]) {
      expect(rt.hasFeature(f)).toBe(r.features.includes(f));
    }
  });

  it('pools buffers by (size, usage) and counts bytes in use and the peak', async () => {
    const rt = await nodeRuntime();
    const before = rt.memory();
    const a = rt.storage(1000, 'a');
    const b = rt.storage(1000, 'b');
    const mid = rt.memory();
    expect(mid.inUse - before.inUse).toBe(2 * 1008);
    rt.release(a);
    const c = rt.storage(1000, 'c');
    expect(c).toBe(a); // reused, not reallocated
    expect(rt.memory().allocated).toBe(mid.allocated);
    rt.release(b, c);
    expect(rt.memory().inUse).toBe(before.inUse);
    expect(rt.memory().peak).toBeGreaterThanOrEqual(mid.allocated);
    expect(() => rt.release(b)).toThrow(/not held/);
  });

  it('round-trips data through upload and readback', async () => {
    const rt = await nodeRuntime();
    const data = new Float32Array([1, 2.5, -3, 4e-7, 5]);
    const buf = rt.upload(data, 'roundtrip');
    expect(Array.from(await rt.readF32(buf, 5))).toEqual(Array.from(data));
    rt.release(buf);
  });

  it('refuses a buffer larger than the device allows, naming the tensor', async () => {
    const rt = await nodeRuntime();
    const tooBig = rt.device.limits.maxBufferSize + 16;
    expect(() => rt.storage(tooBig, 'model.embed_tokens.weight')).toThrow(GpuOutOfMemoryError);
    expect(() => rt.storage(tooBig, 'model.embed_tokens.weight')).toThrow(/model\.embed_tokens\.weight/);
  });

  it('caches pipelines by an explicit key and reports WGSL errors by file', async () => {
    const rt = await nodeRuntime();
    expect(kernelKey({ shader: 'matmul_f32', entry: 'matmul_rb', overrides: { WG_Y: 8, WG_X: 4 } }))
      .toBe('matmul_f32:matmul_rb:WG_X=4,WG_Y=8');
    const p1 = await rt.kernel({ shader: 'matmul_f32', entry: 'matmul_rb', overrides: { WG_X: 4, WG_Y: 4 } });
    const p2 = await rt.kernel({ shader: 'matmul_f32', entry: 'matmul_rb', overrides: { WG_Y: 4, WG_X: 4 } });
    expect(p1).toBe(p2);
    await expect(rt.kernel({ shader: 'no_such_shader', entry: 'main' })).rejects.toThrow(/shaders\/no_such_shader\.wgsl/);
    await expect(rt.kernel({ shader: 'matmul_f32', entry: 'no_entry' })).rejects.toThrow(GpuError);
    await expect(rt.kernel({ shader: 'matmul_f32', entry: 'no_entry' })).rejects.toThrow(/shaders\/matmul_f32\.wgsl has no @compute entry point "no_entry" \(it has .*matmul_rb/);
    await expect(rt.kernel({ shader: 'matmul_f32', entry: 'matmul_rb', overrides: { WG_Z: 4 } })).rejects.toThrow(/declares no override WG_Z/);
  });

  it('builds a kernel pipeline on its first dispatch, or at once with builtKernel (whose build errors reject)', async () => {
    // A runtime of its own: the fork's shared pipelines may hold these kernels already.
    const rt = await ownRuntime();
    const before = rt.pipelines.compiled;
    const k = await rt.kernel({ shader: 'swiglu', entry: 'swiglu', overrides: { WG: 16 } });
    expect(k.isBuilt).toBe(false);
    expect(rt.pipelines.compiled).toBe(before);
    // swiglu over one row of I = 4: out = silu(gate) * up.
    const gu = rt.upload(new Float32Array([1, -2, 0.5, 3, 2, 2, 2, 2]), 'gate|up');
    const out = rt.storage(16, 'out');
    rt.dispatch(k, [gu, out], new Uint32Array([1, 4, 0, 0]), { x: 1 });
    await rt.sync();
    expect(k.isBuilt).toBe(true);
    expect(rt.pipelines.compiled).toBe(before + 1);
    const silu = (x: number) => x / (1 + Math.exp(-x));
    const got = Array.from(await rt.readF32(out, 4));
    [1, -2, 0.5, 3].forEach((g, i) => expect(got[i]).toBeCloseTo(2 * silu(g), 5));
    rt.release(gu, out);
    // Built at once: the same kernel object, now built; a workgroup past the device's limit
    // rejects at builtKernel (dispatching it lazily would report to the device's listeners instead).
    const b = await rt.builtKernel({ shader: 'swiglu', entry: 'swiglu', overrides: { WG: 8 } });
    expect(b.isBuilt).toBe(true);
    expect(await rt.kernel({ shader: 'swiglu', entry: 'swiglu', overrides: { WG: 8 } })).toBe(b);
    const tooWide = rt.device.limits.maxComputeInvocationsPerWorkgroup * 2;
    await expect(rt.builtKernel({ shader: 'swiglu', entry: 'swiglu', overrides: { WG: tooWide } })).rejects.toThrow(new RegExp(`Cannot build pipeline swiglu:swiglu:WG=${tooWide}`));
    rt.destroy();
  });

  it('builds a pipeline at once (kernelNow) only from a shader module already loaded', async () => {
    // A runtime of its own: the shared one may have loaded rope.wgsl in an earlier file.
    const rt = await ownRuntime();
    expect(rt.kernelNow({ shader: 'rope', entry: 'qkv_rope', overrides: { WG: 32 } })).toBeNull();
    const loaded = await rt.kernel({ shader: 'rope', entry: 'qkv_rope', overrides: { WG: 64 } });
    expect(rt.kernelNow({ shader: 'rope', entry: 'qkv_rope', overrides: { WG: 64 } })).toBe(loaded);
    const now = rt.kernelNow({ shader: 'rope', entry: 'qkv_rope', overrides: { WG: 32 } });
    expect(now).not.toBeNull();
    expect(now).not.toBe(loaded);
    // The same object afterwards, by either path.
    expect(rt.kernelNow({ shader: 'rope', entry: 'qkv_rope', overrides: { WG: 32 } })).toBe(now);
    expect(await rt.kernel({ shader: 'rope', entry: 'qkv_rope', overrides: { WG: 32 } })).toBe(now);
    rt.destroy();
  });

  it('is closed once destroyed or once its device is lost; the shared test runtime is then replaced', async () => {
    const mine = await ownRuntime();
    const sibling = mine.sibling(); // same device and pipelines, own pool
    expect(mine.closed).toBe(false);
    mine.destroy();
    expect(mine.closed).toBe(true);
    expect(mine.lost).toBeNull(); // our own destroy() is not a loss
    expect(() => mine.sibling()).toThrow(/destroyed/);
    expect(Array.from(await sibling.readF32(sibling.upload(Float32Array.of(7, 8), 'sibling'), 2))).toEqual([7, 8]);
    sibling.destroy(); // the last runtime on the device: the device goes with it, not as a loss
    const gone = await Promise.race([sibling.device.lost, new Promise<null>((r) => setTimeout(() => r(null), 5000))]);
    expect(gone?.reason).toBe('destroyed');
    expect(sibling.lost).toBeNull();
    const other = await ownRuntime();
    other.device.destroy(); // destroyed by anything else: lost
    expect(await other.lossBehind(5000)).not.toBeNull();
    expect(other.closed).toBe(true);
    // The files of a vitest fork share nodeRuntime(); a test that closes it does not break the next.
    const shared = await nodeRuntime();
    expect(await nodeRuntime()).toBe(shared);
    shared.destroy();
    const next = await nodeRuntime();
    expect(next).not.toBe(shared);
    expect(next.closed).toBe(false);
    expect(Array.from(await next.readF32(next.upload(Float32Array.of(1, 2), 'after'), 2))).toEqual([1, 2]);
  });

  it('self-test: both matmul variants match the CPU and the faster one is remembered', async () => {
    const rt = await nodeRuntime();
    const r = await runMatmulSelfTest(rt, { M: 128, K: 128, N: 128, iters: 2 });
    for (const v of r.variants) console.log(`node self-test ${v.variant}: maxdiff=${v.maxDiff.toExponential(2)} ${v.gflops.toFixed(2)} GFLOPS`);
    expect(r.passed).toBe(true);
    expect(getTuning(rt.report, 'matmul_f32')).toBe(r.best.variant);
  });
});
