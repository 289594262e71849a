// Every test file (vitest setupFiles): before the next file of its fork starts, whatever a test
// left running on the GPU (a decode session's look-ahead step) finishes (settleGpuWork).
import { afterAll } from 'vitest';
import { settleGpuWork } from '../../../src/gpu/runtime';

afterAll(() => settleGpuWork());
