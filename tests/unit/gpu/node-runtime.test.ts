// openNodeRuntime (src/gpu/node-runtime.ts): the Node commands of one process get runtimes of their
// own on one shared device: separate buffer pools and counters, the same compiled pipelines (a
// second model loaded through the CLI path builds none of what the first built), a destroyed
// runtime leaves the others working, and a lost device is replaced at the next open.
// Run: npx vitest run tests/unit/gpu/node-runtime.test.ts
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openNodeRuntime } from '../../../src/gpu/node-runtime';
import { loadCliModel } from '../../../src/model/node-load';
import { warmUp } from '../../../src/model/warm-up';
import { parseArgs } from '../../../src/util/args';
import { STORIES_DIR } from '../../fixtures/io/stories260k';

const MODEL = join(STORIES_DIR, 'stories260K.bin');
const quiet = () => undefined;

describe('openNodeRuntime', () => {
  it('gives each command its own buffers and counters on one device with shared pipelines; destroying one leaves the others', async () => {
    const a = await openNodeRuntime(), b = await openNodeRuntime();
    expect(a).not.toBe(b);
    expect(a.device).toBe(b.device);
    expect(a.pipelines).toBe(b.pipelines);
    const inUseB = b.memory().inUse, dispatchesB = b.dispatchCount;
    const buf = a.upload(Float32Array.from({ length: 256 }, (_, i) => i), 'a only');
    expect(a.memory().inUse).toBeGreaterThanOrEqual(1024);
    expect(b.memory().inUse).toBe(inUseB);
    const spec = { shader: 'swiglu', entry: 'swiglu', overrides: { WG: 24 } }; // no other test builds it
    const built = await a.builtKernel(spec);
    expect(await b.kernel(spec)).toBe(built);
    expect(b.dispatchCount).toBe(dispatchesB);

    a.release(buf);
    a.destroy();
    expect(a.closed).toBe(true);
    expect(b.closed).toBe(false);
    const c = await openNodeRuntime();
    expect(c.device).toBe(b.device); // the device outlives the runtime destroyed on it
    const back = await b.readF32(b.upload(Float32Array.of(3, 4), 'b after'), 2);
    expect(Array.from(back)).toEqual([3, 4]);
    expect(b.lost).toBeNull();
    b.destroy();
    c.destroy();
  });

  it.skipIf(!existsSync(MODEL))('a second model loaded the CLI way in the process builds none of the pipelines the first built', async () => {
    const args = parseArgs(['--model', MODEL, '--quant', 'none', '--tune', 'false']);
    const first = await loadCliModel(args, quiet);
    const w1 = await warmUp(first.rt, first.model, 4);
    const second = await loadCliModel(args, quiet);
    expect(second.rt).not.toBe(first.rt);
    const w2 = await warmUp(second.rt, second.model, 4);
    console.log(`warm-up in one process: first model ${w1.built} pipelines built (${(w1.ms / 1000).toFixed(2)} s; fewer when an earlier file of this fork built them), second ${w2.built} (${(w2.ms / 1000).toFixed(2)} s)`);
    expect(w2.built).toBe(0);
    for (const m of [first, second]) {
      m.model.dispose();
      m.rt.destroy();
    }
  }, 120_000);

  it('replaces a lost device at the next open', async () => {
    const rt = await openNodeRuntime();
    const other = await openNodeRuntime();
    rt.device.destroy(); // destroyed by something other than a runtime: lost, for every runtime on it
    expect(await rt.lossBehind(5000)).not.toBeNull();
    expect(await other.lossBehind(5000)).not.toBeNull();
    const next = await openNodeRuntime();
    expect(next.device).not.toBe(rt.device);
    expect(next.closed).toBe(false);
    expect(Array.from(await next.readF32(next.upload(Float32Array.of(5, 6), 'new device'), 2))).toEqual([5, 6]);
    next.destroy();
  });
});
