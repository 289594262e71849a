// The fingerprint of the linear kernels' code that keys their remembered tuning choices.
import { FNV_OFFSET, fnvText, hex32 } from '../../util/fnv';

/**
 * Fingerprint of the forward linear kernels and their tuner (LINEAR_KERNEL_FILES: the WGSL, the
 * launcher, the timing and the choice), part of every tuning family (tuningFamily): a remembered
 * choice was measured on the code of its time, so changed kernels or a changed tuner are timed
 * again once instead of keeping a choice that may now be the slower one. A unit test
 * (tests/unit/gpu/linear-tune-fingerprint.test.ts) recomputes it from the files and fails, naming
 * the new value, when they change. Its own file, so that it is not part of what it covers.
 */
export const LINEAR_KERNELS_FINGERPRINT = 'b25005d8';

/** The files LINEAR_KERNELS_FINGERPRINT covers (repository paths). */
export const LINEAR_KERNEL_FILES = [
  'shaders/linear.wgsl', 'shaders/linear_tile.wgsl', 'shaders/linear_sample.wgsl', 'shaders/sampling_rng.wgsl',
  'shaders/linear_sg.wgsl', 'shaders/linear_sg_store.wgsl', 'shaders/matmul_nf4.wgsl', 'shaders/matmul_nf4_sg.wgsl',
  'shaders/nf4_codes.wgsl', 'src/gpu/kernels/linear.ts', 'src/gpu/kernels/linear-tune.ts', 'src/gpu/tuning.ts',
];

/** FNV-1a (32 bits, hex) of the texts in order, each preceded by its name: LINEAR_KERNELS_FINGERPRINT's function. */
export function fingerprint(files: readonly { name: string; text: string }[]): string {
  let h = FNV_OFFSET;
  for (const { name, text } of files) h = fnvText(`${name}\n${text}\n`, h);
  return hex32(h);
}
