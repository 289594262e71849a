// Test helper: bitwise comparison of two tensor maps (same names, same f32 bits), printing the
// maxdiff. Used by the resume == continuous tests (sft-resume, rl-resume).
import { expect } from 'vitest';
import type { TensorMap } from '../../../src/model/types';
import { maxAbsDiff } from '../../../src/reference/matmul';

const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);

/** Compares `a` and `b` tensor by tensor; prints and returns the maxdiff and whether every bit matches. */
export function compareTensors(a: TensorMap, b: TensorMap, what: string): { maxdiff: number; identical: boolean } {
  expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
  let maxdiff = 0, identical = true;
  for (const [k, t] of a) {
    const u = b.get(k)!.data;
    maxdiff = Math.max(maxdiff, maxAbsDiff(t.data, u));
    identical &&= bits(t.data).every((x, i) => x === bits(u)[i]);
  }
  console.log(`  ${what}: ${a.size} tensors, maxdiff=${maxdiff}${identical ? ' (bit-identical)' : ''}`);
  return { maxdiff, identical };
}
