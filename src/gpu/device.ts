// Opens a WebGPU device with the adapter's higher limits and the optional features we use,
// and reports what it got. Shared by browser, worker and Node (the GPU object is passed in).
// Exercised by tests/unit/gpu/gpu-runtime.test.ts and the GPU panel.
import { WebGpuUnavailableError } from './errors';
import { ENABLE_WEBGPU_HELP } from './browser-gpu';

/** Optional features we use when the adapter has them. */
export const OPTIONAL_FEATURES: GPUFeatureName[] = ['shader-f16', 'subgroups', 'timestamp-query'];

/** Limits we raise to the adapter's maximum (the spec defaults are far too small for LLMs). */
export const RAISED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupSizeZ',
  'maxComputeWorkgroupsPerDimension',
] as const;

export type RaisedLimit = (typeof RAISED_LIMITS)[number];

export interface AdapterReport {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallback: boolean;
  features: string[];
  limits: Record<RaisedLimit, number>;
  subgroupMinSize?: number;
  subgroupMaxSize?: number;
}

export interface OpenedDevice {
  device: GPUDevice;
  adapter: GPUAdapter;
  report: AdapterReport;
}

export interface OpenDeviceOptions {
  powerPreference?: GPUPowerPreference;
  /** Features to leave off even when present (to test fallbacks). */
  disableFeatures?: GPUFeatureName[];
  /** Caps below the adapter's maximum (values under the WebGPU defaults get the defaults). */
  capLimits?: Partial<Record<RaisedLimit, number>>;
}

/** Requests an adapter and a device with raised limits; throws a user-facing error when none. */
export async function openDevice(gpu: GPU, opts: OpenDeviceOptions = {}): Promise<OpenedDevice> {
  const adapter = await gpu.requestAdapter({ powerPreference: opts.powerPreference ?? 'high-performance' });
  if (!adapter) {
    throw new WebGpuUnavailableError('WebGPU is present but no GPU adapter is available.', ENABLE_WEBGPU_HELP);
  }
  const features = OPTIONAL_FEATURES.filter((f) => adapter.features.has(f) && !opts.disableFeatures?.includes(f));
  const requiredLimits: Record<string, number> = {};
  for (const name of RAISED_LIMITS) requiredLimits[name] = Math.min(adapter.limits[name], opts.capLimits?.[name] ?? Infinity);
  const device = await adapter.requestDevice({
    label: 'rl-studio device',
    requiredFeatures: features,
    requiredLimits,
  });
  const info = adapter.info;
  const limits = {} as Record<RaisedLimit, number>;
  for (const name of RAISED_LIMITS) limits[name] = device.limits[name];
  const sub = info as GPUAdapterInfo & { subgroupMinSize?: number; subgroupMaxSize?: number; isFallbackAdapter?: boolean };
  const report: AdapterReport = {
    vendor: info.vendor || 'unknown',
    architecture: info.architecture || 'unknown',
    device: info.device || '',
    description: info.description || '',
    isFallback: Boolean(sub.isFallbackAdapter ?? (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter),
    features: [...device.features].sort(),
    limits,
    subgroupMinSize: sub.subgroupMinSize,
    subgroupMaxSize: sub.subgroupMaxSize,
  };
  return { device, adapter, report };
}

/** Dawn's toggle for zero-filling workgroup memory through VK_KHR_zero_initialize_workgroup_memory. */
export const ZERO_INIT_EXTENSION_TOGGLE = 'use_vulkan_zero_initialize_workgroup_memory_extension';

/**
 * Chrome's command-line switch that makes Dawn zero-fill workgroup memory with a loop instead of
 * the Vulkan extension, whose form SwiftShader compiles into one store per element (seconds of
 * compile time at a run's first step; src/gpu/node-gpu.ts dawnFlags does the same in Node,
 * scripts/find-chrome.mjs passes it to the browser tests). The GPU panel suggests it on SwiftShader.
 */
export const SWIFTSHADER_CHROME_SWITCH = `--disable-dawn-features=${ZERO_INIT_EXTENSION_TOGGLE}`;

/** True when the adapter is SwiftShader (the CPU driver inside Chrome and Chromium). */
export function isSwiftShader(r: AdapterReport): boolean {
  return /swiftshader/i.test(r.architecture + r.description + r.vendor);
}

/** True for CPU implementations of WebGPU (SwiftShader, llvmpipe, lavapipe): barriers and
 * workgroup memory are expensive there, so kernels prefer one invocation per row or tile. */
export function isCpuAdapter(r: AdapterReport): boolean {
  return r.isFallback || /swiftshader|llvmpipe|lavapipe/i.test(r.architecture + r.description);
}

/**
 * Invocations per workgroup of the kernels that give each row (of logits) one workgroup: log-probs
 * and sampling. 4 on CPU adapters (one SIMD group: a workgroup runs on one CPU thread, so wider ones
 * only add barrier rounds; at V = 1024 WG 4 is 3-10x faster than 64 on SwiftShader, equal at
 * V = 151,936), 64 on GPUs (lanes share the row).
 */
export function rowWorkgroupSize(r: AdapterReport): number {
  return isCpuAdapter(r) ? 4 : 64;
}

/** A stable key for remembering per-adapter choices (kernel variants). */
export function adapterKey(r: AdapterReport): string {
  return [r.vendor, r.architecture, r.device, r.description].join('|');
}
