// The engine worker's adapter-model cache (src/workers/engine/policies.ts Policies.use) on
// agent-tiny in Node, with run folders on disk in place of OPFS: a run's adapter is loaded once,
// forgetRun (a run starts, resumes, ends or is deleted) serves the rewritten adapter instead of the
// old one, at most ADAPTER_CACHE idle models stay loaded (least recently used disposed first), and
// a model in use by a job is never disposed under it (evicted or forgotten: disposed when it ends).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { GpuModel } from '../../../src/model/gpu/model';
import { loadModelFiles } from '../../../src/model/io/loader';
import { openNodeModelSource } from '../../../src/model/io/node-source';
import { lora_init } from '../../../src/reference/lora';
import { NodeFsStorage } from '../../../src/run/node-storage';
import { exportPeftAdapter } from '../../../src/train/peft-export';
import { mulberry32 } from '../../../src/util/rng';
import { ADAPTER_CACHE, Policies, type ModelEntry } from '../../../src/workers/engine/policies';
import { nodeRuntime } from '../helpers/gpu-helpers';

const dispose = vi.spyOn(GpuModel.prototype, 'dispose');
const disposed = (m: GpuModel) => dispose.mock.contexts.includes(m);
/** Disposal waits for the model's load promise: let it run. */
const settle = () => new Promise((r) => setTimeout(r, 0));
afterAll(() => dispose.mockRestore());

describe('adapter cache', () => {
  it('loads once, forgets a run on demand, keeps at most 2 idle models and never disposes one in use', async () => {
    const rt = await nodeRuntime();
    const loaded = await loadModelFiles(await openNodeModelSource('public/models/agent-tiny'));
    const cfg = loaded.config;
    const base = await GpuModel.load(rt, cfg, { read: (n) => loaded.weights.read(n), has: (n) => loaded.weights.tensors.has(n) }, { quant: 'none', quantEmbeddings: false, tune: false });
    const entry: ModelEntry = { loaded, model: base, quant: 'none', quantEmbeddings: false, busy: null };
    const dir = mkdtempSync(join(tmpdir(), 'adapter-cache-'));
    const runFolder = (runId: string) => new NodeFsStorage(join(dir, runId));
    const policies = new Policies((id) => (id === 'm' ? entry : undefined), () => Promise.resolve(rt), (runId) => Promise.resolve(runFolder(runId)));

    /** A rank-2 adapter on q and v with random B (a fresh adapter's B is 0: it would equal the base). */
    const writeAdapter = async (runId: string, seed: number) => {
      const lora = lora_init(cfg, { rank: 2, alpha: 4, useRslora: false, targets: ['q', 'v'] }, seed);
      const rand = mulberry32(seed);
      for (const p of lora.pairs.values()) for (let i = 0; i < p.B.length; i++) p.B[i] = (2 * rand() - 1) * 0.5;
      await runFolder(runId).writeFolder('adapter', exportPeftAdapter(lora, cfg, { baseModelName: 'agent-tiny' }));
    };
    const ids = loaded.tokenizer.encode('<|im_start|>user\nWhat is 2 + 3?<|im_end|>', { addSpecialTokens: true });
    const score = async (m: GpuModel) => Array.from((await m.logprobs([ids])).logprobs[0]);
    const maxdiff = (a: number[], b: number[]) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));
    const use = (runId: string) => policies.use('m', runId, async (m) => ({ model: m, lp: await score(m) }));
    try {
      const baseLp = await policies.use('m', undefined, score);
      await writeAdapter('a', 1);
      const a1 = await use('a');
      expect(maxdiff(a1.lp, baseLp)).toBeGreaterThan(1e-3);
      // The finished run's adapter is merged into the weights (f32 agent-tiny): the same log-probs as the separate path.
      expect(a1.model.loraMerged).toBe(true);
      a1.model.unmergeLora();
      expect(maxdiff(await score(a1.model), a1.lp)).toBeLessThan(1e-4);
      await a1.model.mergeLora();
      expect((await use('a')).model).toBe(a1.model);
      expect(policies.cachedAdapters).toBe(1);

      // Run a resumed and finished with a new adapter: the cache served the old one until the run was forgotten.
      await writeAdapter('a', 2);
      expect((await use('a')).model).toBe(a1.model);
      policies.forgetRun('a');
      await settle();
      expect(disposed(a1.model)).toBe(true);
      const a2 = await use('a');
      expect(a2.model).not.toBe(a1.model);
      const stale = maxdiff(a2.lp, a1.lp);
      console.log(`adapter a after forgetRun: max |logprob diff| vs the old adapter ${stale.toExponential(2)}`);
      expect(stale).toBeGreaterThan(1e-3);

      // LRU: a third run's model disposes the least recently used idle one (a).
      await writeAdapter('b', 3);
      await writeAdapter('c', 4);
      const b = await use('b');
      const c = await use('c');
      expect(ADAPTER_CACHE).toBe(2);
      expect(policies.cachedAdapters).toBe(2);
      await settle();
      expect([disposed(a2.model), disposed(b.model), disposed(c.model)]).toEqual([true, false, false]);

      // In use: b held by a slow job while a and c load; b is the least recently used but survives.
      let release!: () => void;
      const gate = new Promise<void>((r) => { release = r; });
      let started!: () => void;
      const running = new Promise<void>((r) => { started = r; });
      const held = policies.use('m', 'b', async (m) => { started(); await gate; return { model: m, lp: await score(m) }; });
      await running;
      const a3 = await use('a');   // cache c, b (in use), a: c goes
      const c2 = await use('c');   // cache b (in use), a, c: a goes, b is skipped
      await settle();
      expect(disposed(b.model)).toBe(false);
      expect([disposed(c.model), disposed(a3.model), disposed(c2.model)]).toEqual([true, true, false]);
      // Forgotten while in use (the run was deleted): disposed only when the job ends.
      policies.forgetRun('b');
      await settle();
      expect(disposed(b.model)).toBe(false);
      release();
      const after = await held;
      expect(after.model).toBe(b.model);
      expect(maxdiff(after.lp, b.lp)).toBe(0);
      await settle();
      expect(disposed(b.model)).toBe(true);
      expect(policies.cachedAdapters).toBe(1);

      // A run without an adapter is refused with what to do, and not cached.
      await expect(use('none')).rejects.toThrow(/run none has no adapter yet .*pick a finished run/);
      expect(policies.cachedAdapters).toBe(1);
      expect(disposed(base)).toBe(false);
    } finally {
      policies.forgetRun('c');
      base.dispose();
    }
  }, 180_000);
});
