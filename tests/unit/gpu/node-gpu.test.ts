// The Node WebGPU provider: driver discovery (an override naming a missing ICD file fails with a
// message that says what to do; in a child process because the provider caches Dawn once per
// process), Dawn's options per driver (dawnFlags), and workgroup memory still zero-filled on the
// device it opens (on SwiftShader Tint fills it, not the Vulkan extension: dawnFlags).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dawnFlags } from '../../../src/gpu/node-gpu';
import { Kernel } from '../../../src/gpu/pipelines';
import { SWIFTSHADER_CHROME_SWITCH } from '../../../src/gpu/device';
import { SWIFTSHADER_FAST_COMPILE } from '../../../scripts/find-chrome.mjs';
import { nodeRuntime } from '../helpers/gpu-helpers';

/** Runs `script` in a fresh Node process (the provider caches Dawn once per process) with `env` added; its stdout and stderr. */
function inChild(script: string, env: Record<string, string>): string {
  const r = spawnSync('npx', ['tsx', '-e', script], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return r.stdout + r.stderr;
}

describe('getNodeGpu', () => {
  it('names the bad RL_STUDIO_VK_ICD file and what to install', () => {
    const script = "import('./src/gpu/node-gpu.ts').then(m => m.getNodeGpu()).then(() => console.log('opened'), e => { console.log(e.name + ': ' + e.message); })";
    const out = inChild(script, { RL_STUDIO_VK_ICD: '/nonexistent/icd.json', VK_ICD_FILENAMES: '' });
    expect(out).toContain('WebGpuUnavailableError');
    expect(out).toContain('/nonexistent/icd.json');
    expect(out).toMatch(/apt-get install chromium/);
  });

  // A machine with Mesa's GPU drivers installed but none of their GPUs (libvulkan1 pulls them in):
  // an installed ICD file is found, the loader opens no adapter through it, and the provider falls
  // back to SwiftShader. The fake ICD names a library that does not exist.
  it('falls back to SwiftShader when the installed drivers open no adapter', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rl-icd-'));
    writeFileSync(join(dir, 'fake_gpu_icd.x86_64.json'), JSON.stringify({ file_format_version: '1.0.0', ICD: { library_path: '/nonexistent/libvulkan_fake_gpu.so', api_version: '1.3.0' } }));
    const script = "import('./src/gpu/node-gpu.ts').then(async (m) => { const { gpu, setup } = await m.getNodeGpu(); const a = await gpu.requestAdapter(); console.log('icd=' + setup.icd + ' adapter=' + (a ? a.info.architecture || 'yes' : 'none')); process.exit(0); }, (e) => { console.log(e.name + ': ' + e.message); process.exit(0); })";
    const out = inChild(script, { RL_STUDIO_VK_ICD: '', VK_ICD_FILENAMES: '', VK_DRIVER_FILES: join(dir, 'fake_gpu_icd.x86_64.json'), RL_STUDIO_VK_ICD_DIRS: dir });
    rmSync(dir, { recursive: true, force: true });
    console.log(`no adapter from the installed drivers: ${out.split('\n').filter((l) => /icd=|gpu:/.test(l)).join(' | ')}`);
    expect(out).toContain('offer no adapter; using SwiftShader');
    expect(out).toMatch(/icd=\S*vk_swiftshader_icd\.json adapter=swiftshader/);
  });

  it('dawnFlags: SwiftShader zero-fills workgroup memory through Tint; robustness off only when asked', () => {
    const noExtension = 'disable-dawn-features=use_vulkan_zero_initialize_workgroup_memory_extension';
    expect(dawnFlags('/usr/lib/chromium/vk_swiftshader_icd.json', true)).toEqual([noExtension]);
    expect(dawnFlags('/usr/lib/chromium/vk_swiftshader_icd.json', false)).toEqual(['enable-dawn-features=disable_robustness', noExtension]);
    expect(dawnFlags('system', true)).toEqual([]);
    expect(dawnFlags('/etc/vulkan/icd.d/nvidia_icd.json', false)).toEqual(['enable-dawn-features=disable_robustness']);
    // The browser tests' Chromium switch and the one the GPU panel names are the same toggle.
    expect(SWIFTSHADER_FAST_COMPILE).toBe(SWIFTSHADER_CHROME_SWITCH);
    expect(SWIFTSHADER_CHROME_SWITCH).toBe(`--${noExtension}`);
  });

  it('workgroup memory reads as zeros before any write, in every one of 64 workgroups', async () => {
    // Each workgroup sums its tile before writing it, then fills it with non-zeros: a workgroup
    // that ran after another on the same CPU thread would see those values if nothing zeroed it.
    const rt = await nodeRuntime();
    const code = `
      var<workgroup> tile: array<f32, 1024>;
      @group(0) @binding(0) var<storage, read_write> sums: array<f32>;
      @compute @workgroup_size(64)
      fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
        var s = 0.0;
        for (var i = li; i < 1024u; i += 64u) { s += abs(tile[i]); }
        workgroupBarrier();
        for (var i = li; i < 1024u; i += 64u) { tile[i] = f32(i + 1u); }
        sums[wid.x * 64u + li] = s;
      }`;
    const kernel = new Kernel('workgroup zero test', () =>
      rt.device.createComputePipeline({ layout: 'auto', compute: { module: rt.device.createShaderModule({ code }), entryPoint: 'main' } }));
    const out = rt.storage(64 * 64 * 4, 'workgroup zero sums');
    rt.dispatch(kernel, [out], null, { x: 64 });
    const sums = new Float32Array(await rt.read(out));
    expect(sums.length).toBe(64 * 64);
    expect(Math.max(...sums)).toBe(0);
  });
});
