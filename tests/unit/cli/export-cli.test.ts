// `npm run cli -- export` end to end (in the test's process, tests/fixtures/cli-in-process.ts) on stories260K with a PEFT adapter:
// the merged folder scores like base + --adapter through `logprobs` (1e-5), and the ONNX export
// passes its own --check (onnxruntime-web wasm vs our engine). Unknown formats are refused.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STORIES_DIR } from '../../fixtures/io/stories260k';
import { syntheticLora } from '../../fixtures/interop-models';
import { exportPeftAdapter } from '../../../src/train/peft-export';
import { writeFiles } from '../../../src/train/write-files';
import { loadModelFiles } from '../../../src/model/io/loader';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import { cliInProcess } from '../../fixtures/cli-in-process';

const cli = (...args: string[]) => cliInProcess(args);

const MODEL = join(STORIES_DIR, 'stories260K.bin');

describe('cli export', () => {
  it('merged: the folder scores like base + adapter; onnx: --check passes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'export-'));
    const loaded = await loadModelFiles(await openNodeModelSource(MODEL));
    await writeFiles(join(dir, 'adapter'), exportPeftAdapter(syntheticLora(loaded.config), loaded.config, { baseModelName: 'stories260K' }));

    const m = await cli('export', '--model', MODEL, '--adapter', join(dir, 'adapter'), '--format', 'merged', '--out', join(dir, 'merged'));
    expect(m.code, m.err).toBe(0);
    for (const f of ['config.json', 'model.safetensors', 'tokenizer.json']) expect(existsSync(join(dir, 'merged', f))).toBe(true);

    writeFileSync(join(dir, 'in.jsonl'), '{"text": "Once upon a time there was a cat"}\n');
    const score = async (out: string, ...model: string[]) => {
      const r = await cli('logprobs', ...model, '--input', join(dir, 'in.jsonl'), '--out', join(dir, out), '--quant', 'none');
      expect(r.code, r.err).toBe(0);
      return (JSON.parse(readFileSync(join(dir, out), 'utf8')) as { logprobs: number[] }).logprobs;
    };
    const merged = await score('merged.jsonl', '--model', join(dir, 'merged'));
    const base = await score('base.jsonl', '--model', MODEL, '--adapter', join(dir, 'adapter'));
    const d = Math.max(...merged.map((v, i) => Math.abs(v - base[i])));
    console.log(`cli merged vs base + adapter: ${merged.length} log-probs, maxdiff ${d.toExponential(2)}`);
    expect(merged.length).toBeGreaterThan(3);
    expect(d).toBeLessThan(1e-5);

    const o = await cli('export', '--model', MODEL, '--adapter', join(dir, 'adapter'), '--format', 'onnx', '--dtype', 'f32', '--out', join(dir, 'onnx'), '--check');
    console.log(o.err.split('\n').filter((l) => l.startsWith('check')).join('\n'));
    expect(o.code, o.err).toBe(0);
    expect(o.err).toMatch(/greedy 16 tokens identical/);
    expect(existsSync(join(dir, 'onnx', 'onnx', 'model.onnx'))).toBe(true);
  });

  it('refuses an unknown format and names the choices', async () => {
    const r = await cli('export', '--model', MODEL, '--format', 'gguf', '--out', '/tmp/never');
    expect(r.code).toBe(1);
    expect(r.err).toContain('--format "gguf" is not one of merged, onnx');
  });
});
