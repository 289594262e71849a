// `npm run bench -- gpu [--size N] [--iters N]`: the GPU self-test in Node at a chosen size:
// adapter, max difference against the CPU and GFLOPS of each f32 matmul variant; then this
// adapter's limits (peak Linear GFLOPS at that size, streaming-read GB/s: src/gpu/limits.ts).
import { getNodeGpu } from '../src/gpu/node-gpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { runMatmulSelfTest } from '../src/gpu/selftest';
import { getNumber, parseArgs } from '../src/util/args';
import { describeLimits, measureLimits } from '../src/gpu/limits';

const args = parseArgs(process.argv.slice(2));
const size = getNumber(args, 'size', 512);
const iters = getNumber(args, 'iters', 8);
const { gpu, setup } = await getNodeGpu();
const rt = await GpuRuntime.create(gpu);
console.log(`adapter: ${rt.report.vendor} ${rt.report.architecture} (ICD ${setup.icd})`);
const r = await runMatmulSelfTest(rt, { M: size, K: size, N: size, iters });
console.log(`matmul ${size}x${size}x${size}, ${iters} timed runs:`);
for (const v of r.variants) {
  console.log(`  ${v.variant.padEnd(6)} maxdiff ${v.maxDiff.toExponential(2)}  ${v.msPerRun.toFixed(1)} ms/run  ${v.gflops.toFixed(2)} GFLOPS`);
}
console.log(`best: ${r.best.variant}, passed: ${r.passed}`);
console.log(describeLimits(await measureLimits(rt, { size })));
process.exit(0);
