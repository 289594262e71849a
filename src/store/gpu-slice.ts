// Store slice for the GPU: opening the device, the adapter report, the self-test and memory
// figures. The runtime object itself lives outside React state (not serializable).
import type { StateCreator } from 'zustand';
import { getBrowserGpu, ENABLE_WEBGPU_HELP } from '../gpu/browser-gpu';
import { GpuRuntime } from '../gpu/runtime';
import type { AdapterReport } from '../gpu/device';
import { WebGpuUnavailableError } from '../gpu/errors';
import { runMatmulSelfTest, type SelfTestResult } from '../gpu/selftest';
import type { PoolStats } from '../gpu/pool';
import type { StudioState } from './store';

export type GpuStatus = 'idle' | 'opening' | 'ready' | 'unavailable' | 'error';

export interface GpuSlice {
  gpuStatus: GpuStatus;
  gpuReport: AdapterReport | null;
  gpuError: { message: string; help: string[] } | null;
  gpuMemory: PoolStats | null;
  selfTest: { running: boolean; progress: string; result: SelfTestResult | null; error: string | null };
  openGpu: () => Promise<GpuRuntime | null>;
  runSelfTest: (size?: number) => Promise<void>;
}

let runtime: GpuRuntime | null = null;

/** The studio's runtime once opened (for engine code called from UI actions). */
export function currentRuntime(): GpuRuntime | null {
  return runtime;
}

export const createGpuSlice: StateCreator<StudioState, [], [], GpuSlice> = (set, get) => ({
  gpuStatus: 'idle',
  gpuReport: null,
  gpuError: null,
  gpuMemory: null,
  selfTest: { running: false, progress: '', result: null, error: null },

  openGpu: async () => {
    if (runtime) return runtime;
    set({ gpuStatus: 'opening' });
    try {
      runtime = await GpuRuntime.create(getBrowserGpu());
      runtime.onError((err) => set({ gpuStatus: runtime?.lost ? 'error' : get().gpuStatus, gpuError: { message: err.message, help: [] } }));
      set({ gpuStatus: 'ready', gpuReport: runtime.report, gpuMemory: runtime.memory(), gpuError: null });
      return runtime;
    } catch (e) {
      const unavailable = e instanceof WebGpuUnavailableError;
      set({
        gpuStatus: unavailable ? 'unavailable' : 'error',
        gpuError: { message: unavailable ? e.message.split('\n')[0] : (e as Error).message, help: unavailable ? e.help : ENABLE_WEBGPU_HELP },
      });
      return null;
    }
  },

  runSelfTest: async (size = 256) => {
    const rt = await get().openGpu();
    if (!rt) return;
    set({ selfTest: { running: true, progress: 'starting', result: null, error: null } });
    try {
      const result = await runMatmulSelfTest(rt, {
        M: size, K: size, N: size,
        onProgress: (progress) => set((s) => ({ selfTest: { ...s.selfTest, progress } })),
      });
      set({ selfTest: { running: false, progress: 'done', result, error: null }, gpuMemory: rt.memory() });
    } catch (e) {
      set({ selfTest: { running: false, progress: 'failed', result: null, error: (e as Error).message } });
    }
  },
});
