// WebGPU for Node (CLI, vitest, benchmarks) through the `webgpu` npm package (Dawn).
// Finds a Vulkan driver by itself: a real GPU's ICD if one is installed and opens an adapter,
// else the SwiftShader ICD that ships inside Chromium (Mesa's drivers installed on a machine
// without that GPU offer none). Override with RL_STUDIO_VK_ICD (or VK_ICD_FILENAMES).
// RL_STUDIO_GPU_ROBUSTNESS=off turns Dawn's bounds checks off (opt-in: faster kernels, and an
// out-of-bounds access in a kernel is then undefined behaviour in this process).
// Exercised by every Node test that touches the GPU (tests/unit/gpu/gpu-*.test.ts).
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { CACHE_DIR } from '../util/cache-dir';
import { dirname, join } from 'node:path';
import { WebGpuUnavailableError } from './errors';
import { setTuningStore } from './tuning';
import { ZERO_INIT_EXTENSION_TOGGLE } from './device';

const SWIFTSHADER_DIRS = ['/usr/lib/chromium', '/usr/lib/chromium-browser', '/opt/google/chrome', '/snap/chromium/current/usr/lib/chromium-browser'];
const SYSTEM_ICD_DIRS = ['/etc/vulkan/icd.d', '/usr/share/vulkan/icd.d', '/usr/local/share/vulkan/icd.d'];
const SYSTEM_LIB_DIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib', '/lib/x86_64-linux-gnu'];

export const NODE_GPU_HELP = [
  'Install a Vulkan driver for your GPU, or Chromium, whose SwiftShader CPU driver we use when no GPU exists (Debian/Ubuntu: apt-get install chromium).',
  'Or point RL_STUDIO_VK_ICD at a Vulkan ICD json file (for example /usr/lib/chromium/vk_swiftshader_icd.json).',
];

export interface NodeGpuSetup {
  /** The ICD file in use, or 'system' when the Vulkan loader chooses. */
  icd: string;
  /** Where libvulkan.so.1 came from. */
  loader: string;
  /** False when RL_STUDIO_GPU_ROBUSTNESS=off turned Dawn's bounds checks off. */
  robustness: boolean;
}

/**
 * Dawn's robustness (every storage access of a kernel clamped or checked against its buffer) on
 * unless RL_STUDIO_GPU_ROBUSTNESS is `off` (`on` or unset: on; anything else is an error naming
 * the variable). Off, SwiftShader runs the training kernels about 1.25x faster here (`bench train
 * --only stories`: 762-770 -> 950-964 tokens/s, same loss), but a kernel that reads or writes
 * past a buffer then corrupts this process's memory instead of reading zeros: for trusted kernels
 * and long CLI runs, never the default. The browser decides this for itself (Chrome keeps it on).
 */
export function robustnessFromEnv(value = process.env.RL_STUDIO_GPU_ROBUSTNESS): boolean {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'on') return true;
  if (v === 'off') return false;
  throw new WebGpuUnavailableError(`RL_STUDIO_GPU_ROBUSTNESS must be "on" or "off", got "${value}".`, ['Unset it (robustness on, the default) or set it to off to trade bounds checks for speed.']);
}

let cached: { gpu: GPU; setup: NodeGpuSetup } | undefined;

/**
 * Dawn's options for the driver in `icd`. WGSL zero-fills workgroup memory; on Vulkan, Dawn does
 * it by default through VK_KHR_zero_initialize_workgroup_memory (the variables' initializers),
 * which SwiftShader compiles into one store per element: 1-1.5 s more compile time for every
 * pipeline that declares a tile, a reduction buffer or the NF4 code table (dw_tiled 1.2 -> 0.09 s,
 * grpo_reduce at 256 invocations 0.94 -> 0.05 s). On SwiftShader the extension is turned off, so
 * that Tint zero-fills the memory with a loop instead: the same zeros. A real GPU's driver keeps
 * Dawn's default.
 */
export function dawnFlags(icd: string, robustness: boolean): string[] {
  const flags = robustness ? [] : ['enable-dawn-features=disable_robustness'];
  if (/swiftshader/i.test(icd)) flags.push(`disable-dawn-features=${ZERO_INIT_EXTENSION_TOGGLE}`);
  return flags;
}

function swiftShaderIcd(): string | undefined {
  for (const dir of SWIFTSHADER_DIRS) {
    const p = `${dir}/vk_swiftshader_icd.json`;
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** Where installed drivers' ICD files are looked for: RL_STUDIO_VK_ICD_DIRS (colon-separated; tests) or the loader's standard directories. */
function systemIcdDirs(): string[] {
  const dirs = process.env.RL_STUDIO_VK_ICD_DIRS;
  return dirs ? dirs.split(':').filter(Boolean) : SYSTEM_ICD_DIRS;
}

/** True when some non-software Vulkan ICD (a real GPU driver) is installed system-wide. */
function hasHardwareIcd(): boolean {
  for (const dir of systemIcdDirs()) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)) {
      // lavapipe (lvp) is Mesa's CPU driver: too old on Debian 12 for Dawn; prefer SwiftShader.
      if (f.endsWith('.json') && !/lvp|swiftshader/i.test(f)) return true;
    }
  }
  return false;
}

function chooseIcd(): string {
  const override = process.env.RL_STUDIO_VK_ICD ?? process.env.VK_ICD_FILENAMES;
  if (override) {
    if (!existsSync(override)) {
      throw new WebGpuUnavailableError(`The Vulkan ICD file ${override} (from RL_STUDIO_VK_ICD / VK_ICD_FILENAMES) does not exist.`, NODE_GPU_HELP);
    }
    process.env.VK_ICD_FILENAMES = override;
    return override;
  }
  if (hasHardwareIcd()) return 'system';
  const ss = swiftShaderIcd();
  if (!ss) throw new WebGpuUnavailableError('No Vulkan driver found for WebGPU in Node.', NODE_GPU_HELP);
  process.env.VK_ICD_FILENAMES = ss;
  return ss;
}

/** Makes libvulkan.so.1 loadable: the system's, or the copy that ships beside Chromium. */
function ensureVulkanLoader(icd: string): string {
  for (const dir of SYSTEM_LIB_DIRS) if (existsSync(`${dir}/libvulkan.so.1`)) return `${dir}/libvulkan.so.1`;
  const candidates = [icd !== 'system' ? icd.replace(/[^/]+$/, 'libvulkan.so.1') : '', ...SWIFTSHADER_DIRS.map((d) => `${d}/libvulkan.so.1`)];
  for (const lib of candidates) {
    if (!lib || !existsSync(lib)) continue;
    // Load it once, globally and never unloaded (RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE), so
    // Dawn's own dlopen("libvulkan.so.1") finds it by soname. process.dlopen then complains that
    // it is not a Node addon, which is expected.
    try {
      process.dlopen({ exports: {} } as NodeJS.Module, lib, 0x2 | 0x100 | 0x1000);
    } catch { /* "did not self-register": the library stays loaded */ }
    return lib;
  }
  throw new WebGpuUnavailableError('The Vulkan loader (libvulkan.so.1) is missing.', ['Debian/Ubuntu: apt-get install libvulkan1 (or chromium, which ships one).', ...NODE_GPU_HELP]);
}

/**
 * Kernel-variant choices persist in a JSON file (RL_STUDIO_TUNING_FILE; unset or empty:
 * ~/.cache/rl-studio/tuning.json) so each adapter is measured once, not once per command.
 * vitest points it at a temporary file (tests/unit/helpers/tuning-file-setup.ts).
 */
export function tuningFilePath(): string {
  return process.env.RL_STUDIO_TUNING_FILE || join(CACHE_DIR, 'tuning.json');
}

function installTuningFile(): void {
  const file = tuningFilePath();
  let data: Record<string, string> = {};
  try {
    data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch { /* no file yet, or unreadable: start empty */ }
  setTuningStore({
    getItem: (k) => data[k] ?? null,
    setItem: (k, v) => {
      data[k] = v;
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, JSON.stringify(data, null, 1));
      } catch { /* read-only home: the choice still holds for this process */ }
    },
  });
}

/** Returns Dawn's GPU object for this process (created once), with WebGPU globals installed. */
export async function getNodeGpu(): Promise<{ gpu: GPU; setup: NodeGpuSetup }> {
  if (cached) return cached;
  let icd = process.platform === 'linux' ? chooseIcd() : 'system';
  const loader = process.platform === 'linux' ? ensureVulkanLoader(icd) : 'system';
  const robustness = robustnessFromEnv();
  const dawn = await import('webgpu');
  Object.assign(globalThis, dawn.globals);
  let gpu = dawn.create(dawnFlags(icd, robustness));
  // Installed drivers that open no adapter (Mesa's Intel / Radeon ICDs on a machine without that
  // GPU, which libvulkan1 pulls in): SwiftShader in a new Dawn instance (the Vulkan loader reads
  // its driver list, VK_DRIVER_FILES before VK_ICD_FILENAMES, again when one is created).
  const ss = icd === 'system' && process.platform === 'linux' ? swiftShaderIcd() : undefined;
  if (ss && !(await gpu.requestAdapter())) {
    process.stderr.write(`gpu: the installed Vulkan drivers offer no adapter; using SwiftShader (${ss})\n`);
    process.env.VK_ICD_FILENAMES = process.env.VK_DRIVER_FILES = icd = ss;
    gpu = dawn.create(dawnFlags(icd, robustness));
  }
  if (!robustness) process.stderr.write('gpu: robustness off (RL_STUDIO_GPU_ROBUSTNESS=off): an out-of-bounds access in a kernel is undefined behaviour\n');
  installTuningFile();
  cached = { gpu, setup: { icd, loader, robustness } };
  return cached;
}
