// onnxruntime-web in Chromium on our ONNX exports: the WebGPU execution provider and the wasm
// one, each next to our engine on the same base + adapter in the same page, for every model of
// tests/fixtures/interop-models.ts: log-probs within 1e-4 with and without past key/values,
// identical greedy tokens. The runtime files come from the studio's own server (/ort/).
// The WebGPU EP compiles shaders per shape and is slow on SwiftShader (about a minute for the
// first run), so it gets a lean input: one short sequence and a few greedy tokens.
import { expect, test } from '@playwright/test';
import { INTEROP_MODELS } from '../fixtures/interop-models';
import { exportOnnxFolder, MemorySink, onnxModelPath } from '../../src/export';
import { exportPeftAdapter } from '../../src/train/peft-export';
import type { OrtCompareRequest, OrtGenerateRequest, OrtGenerateResult } from '../../src/harness/ort.harness';
import type { EngineComparison } from '../../src/ort/check';

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

for (const m of INTEROP_MODELS) {
  test(`onnxruntime-web WebGPU and wasm match our engine: ${m.name}`, async ({ page }) => {
    test.setTimeout(600_000);
    const input = await m.open();
    const sink = new MemorySink();
    await exportOnnxFolder(input, sink, { dtypes: ['f32'] });
    const base: Record<string, string> = {};
    for (const f of await input.source.list()) if (f === 'config.json' || f.endsWith('.safetensors')) base[f] = b64(await input.source.read(f));
    const adapter = input.lora ? Object.fromEntries([...exportPeftAdapter(input.lora, input.config, { baseModelName: 'test' })].map(([k, v]) => [k, b64(v)])) : null;

    page.on('console', (msg) => { if (msg.type() === 'error' || msg.type() === 'warning') console.log(`[page ${msg.type()}] ${msg.text()}`); });
    page.on('pageerror', (e) => console.log(`[page error] ${e.message}`));
    await page.goto('/harness.html');
    await expect(page.locator('#status')).toContainText('ortCompare');
    const onnx = b64(sink.files.get(onnxModelPath('f32'))!);
    for (const backend of ['webgpu', 'wasm'] as const) {
      const lean = backend === 'webgpu';
      const req: OrtCompareRequest = {
        base, adapter, onnx, dtype: 'f32', backend,
        sequences: lean ? [m.sequences[0].slice(0, 6)] : m.sequences,
        prompt: m.prompt.slice(0, 3),
        maxNewTokens: lean ? 4 : m.maxNewTokens,
      };
      const r = await page.evaluate((q) => (window as unknown as { __harness: Record<string, (q: OrtCompareRequest) => Promise<EngineComparison>> }).__harness.ortCompare(q), req);
      console.log(`${m.name} ${backend}: log-probs maxdiff ${r.maxDiff.toExponential(2)}, with past ${r.maxDiffWithPast.toExponential(2)}; greedy ours ${r.oursGreedy.join(',')} | ort ${r.ortGreedy.join(',')}`);
      expect(r.maxDiff).toBeLessThan(1e-4);
      expect(r.maxDiffWithPast).toBeLessThan(1e-4);
      expect(r.ortGreedy).toEqual(r.oursGreedy);
    }
  });
}

// The generation path the eval / playground code uses (openEngine + generateOn), on both engines
// in one page: ours, then ORT, then ours again; greedy on the WebGPU and wasm EPs, seeded
// sampling on wasm.
test('generateOn through openEngine: ORT (WebGPU and wasm EPs) gives our tokens; agent-tiny + LoRA', async ({ page }) => {
  test.setTimeout(600_000);
  const m = INTEROP_MODELS.find((x) => x.name.startsWith('agent-tiny'))!;
  const input = await m.open();
  const sink = new MemorySink();
  await exportOnnxFolder(input, sink, { dtypes: ['f32'] });
  const onnxFolder = Object.fromEntries([...sink.files].map(([k, v]) => [k, b64(v)]));
  const base: Record<string, string> = {};
  for (const f of await input.source.list()) if (f === 'config.json' || f.endsWith('.safetensors')) base[f] = b64(await input.source.read(f));
  const adapter = input.lora ? Object.fromEntries([...exportPeftAdapter(input.lora, input.config, { baseModelName: 'test' })].map(([k, v]) => [k, b64(v)])) : null;
  page.on('pageerror', (e) => console.log(`[page error] ${e.message}`));
  await page.goto('/harness.html');
  await expect(page.locator('#status')).toContainText('ortGenerate');
  const cases: Pick<OrtGenerateRequest, 'backend' | 'temperature' | 'seed' | 'maxNewTokens'>[] = [
    { backend: 'webgpu', temperature: 0, seed: 0, maxNewTokens: 6 },
    { backend: 'wasm', temperature: 0, seed: 0, maxNewTokens: 16 },
    { backend: 'wasm', temperature: 1, seed: 5, maxNewTokens: 16 },
  ];
  for (const c of cases) {
    const req: OrtGenerateRequest = { base, adapter, onnxFolder, prompt: m.prompt, ...c };
    const r = await page.evaluate((q) => (window as unknown as { __harness: Record<string, (q: OrtGenerateRequest) => Promise<OrtGenerateResult>> }).__harness.ortGenerate(q), req);
    console.log(`generateOn ${c.backend} T=${c.temperature}: ours ${r.ours.join(',')} | ort ${r.ort.join(',')} | ours after ${r.oursAfter.join(',')}; log-prob maxdiff ${r.maxLogprobDiff.toExponential(2)}`);
    expect(r.ort).toEqual(r.ours);
    expect(r.oursAfter).toEqual(r.ours);
    expect(r.maxLogprobDiff).toBeLessThan(1e-4);
  }
});
