// Our engine and an onnxruntime-web WebGPU session alive together in one page, interleaved in
// the order that used to be avoided (ours, then an ORT WebGPU session, then ours again, ...) and
// with ORT's device created first (our model then loads and tunes its kernels): every step must
// finish within its budget with the same log-probs and greedy tokens. See src/ort/env.ts for why
// the two never block each other (separate devices) and what the old "stall" was.
import { expect, test } from '@playwright/test';
import { INTEROP_MODELS } from '../fixtures/interop-models';
import { exportOnnxFolder, MemorySink, onnxModelPath } from '../../src/export';
import { exportPeftAdapter } from '../../src/train/peft-export';
import type { OrtInterleaveRequest, OrtInterleaveStep } from '../../src/harness/ort.harness';

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const m = INTEROP_MODELS.find((x) => x.name.startsWith('agent-tiny'))!;

// One page, both orders: ORT's device first (ours then loads and tunes its kernels), then ours before
// a new ORT session twice. (Ours before ORT untuned, with ORT's CPU cache, is ort.spec.ts's
// generateOn test: ours, ORT, ours again in one page.)
const variants = [
  { order: ['ort', 'ours', 'ort', 'ours', 'ort'], tune: true, gpuCache: true },
] as const;
for (const { order, tune, gpuCache } of variants) {
  test(`${m.name}: our engine and an ORT WebGPU session interleave in one page: ${order.join(' > ')}${tune ? ', ours tuned' : ''}${gpuCache ? ', ORT cache on the GPU' : ''}`, async ({ page }) => {
    test.setTimeout(600_000);
    const input = await m.open();
    const sink = new MemorySink();
    await exportOnnxFolder(input, sink, { dtypes: ['f32'] });
    const base: Record<string, string> = {};
    for (const f of await input.source.list()) if (f === 'config.json' || f.endsWith('.safetensors')) base[f] = b64(await input.source.read(f));
    const adapter = input.lora ? Object.fromEntries([...exportPeftAdapter(input.lora, input.config, { baseModelName: 'test' })].map(([k, v]) => [k, b64(v)])) : null;
    page.on('console', (msg) => { if (msg.type() === 'error') console.log(`[page ${msg.type()}] ${msg.text()}`); });
    await page.goto('/harness.html');
    await expect(page.locator('#status')).toContainText('ortInterleave');
    const req: OrtInterleaveRequest = {
      base, adapter, onnx: b64(sink.files.get(onnxModelPath('f32'))!), prompt: m.prompt.slice(0, 3), maxNewTokens: 4, sequences: m.sequences,
      order: [...order], tune, gpuCache, stepTimeoutMs: 180_000,
    };
    const steps = await page.evaluate((q) => (window as unknown as { __harness: Record<string, (q: OrtInterleaveRequest) => Promise<OrtInterleaveStep[]>> }).__harness.ortInterleave(q), req);
    for (const s of steps) console.log(`${s.engine}: ${s.stalled ? 'STALLED' : s.tokens!.join(',')}: open ${s.openMs.toFixed(0)} ms, generate ${s.ms.toFixed(0)} ms`);
    expect(steps.map((s) => s.stalled)).toEqual(req.order.map(() => false));
    for (const s of steps) {
      expect(s.tokens).toEqual(steps[0].tokens);
      expect(s.logprobs.length).toBe(steps[0].logprobs.length);
      expect(Math.max(...s.logprobs.map((v, i) => Math.abs(v - steps[0].logprobs[i])))).toBeLessThan(1e-4);
    }
  });
}
