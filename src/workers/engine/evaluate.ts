// The engine worker's `evaluate` request: the config's held-out split (its shipped eval file, or
// the dataset text sent) scored for the base model and, when a run id is given, that run's adapter
// with the CLI's figures (src/rl/eval-run.ts: accuracy / pass@k, tool-call rate, malformed calls,
// per family); progress per chunk of tasks; an adapter's report is saved as its run's eval.json in
// OPFS. Exercised by tests/e2e/studio-eval.spec.ts.
import { gpuEngine } from '../../model/gpu/engine';
import { parseConfig } from '../../rl/config-validate';
import { taskFile, tasksFromText } from '../../rl/env-factory';
import { evalTemperature, evaluatePolicy, type EvalReport } from '../../rl/eval-run';
import { EVAL_FILE } from '../../run/layout';
import { OpfsStorage } from '../../run/opfs-storage';
import type { Policies, Serial } from './policies';
import type { EngineRequest, EngineResults } from './protocol';
import { shippedText } from './services';

type EvalRequest = Extract<EngineRequest, { kind: 'evaluate' }>;
type Progress = (done: number, total: number, stage: string) => void;

export function evaluateRequest(policies: Policies, serial: Serial, req: EvalRequest, progress: Progress): Promise<EngineResults['evaluate']> {
  return serial.run(async () => {
    const cfg = parseConfig(req.configYaml, 'config.yaml');
    const temperature = evalTemperature(cfg, req.samples);
    const m = policies.model(req.modelId);
    const file = taskFile(cfg, req.split);
    let text: string | null, dataset: string;
    if (req.dataset) {
      dataset = 'text' in req.dataset ? req.dataset.name : req.dataset.shipped;
      text = 'text' in req.dataset ? req.dataset.text : await shippedText(req.dataset.shipped, 'dataset');
    } else {
      dataset = file ?? 'story';
      text = file ? await shippedText(file, req.split === 'eval' ? 'data.eval_dataset' : 'data.dataset') : null;
    }
    let tasks = tasksFromText(cfg, text, dataset);
    if (req.tasks > 0) tasks = tasks.slice(0, req.tasks);
    if (!tasks.length) throw new Error(`${dataset}: no tasks to evaluate; pick a file with tasks of the ${cfg.data.env} environment`);
    const rt = await policies.runtime();
    const svc = await policies.services(cfg);
    const base = policies.base(req.modelId);
    // The adapter's model stays loaded (never disposed by the cache) until both policies are scored.
    const scores = await policies.use(req.modelId, req.adapter, async (adapted) => {
      const policiesToScore = [{ name: 'base', model: base }];
      if (req.adapter) policiesToScore.push({ name: `adapter ${req.adapter}`, model: adapted });
      const total = tasks.length * policiesToScore.length;
      const out: Record<string, number>[] = [];
      for (const [i, p] of policiesToScore.entries()) {
        progress(i * tasks.length, total, p.name);
        const r = await evaluatePolicy(cfg, gpuEngine(rt, p.model), m.loaded.tokenizer, svc.services, tasks, req.samples,
          (done) => progress(i * tasks.length + done, total, p.name));
        out.push(r.metrics);
      }
      return out;
    });
    const report: EvalReport = {
      dataset, split: req.split, tasks: tasks.length, samples: req.samples, temperature, at: new Date().toISOString(),
      base: scores[0], adapter: req.adapter ? { runId: req.adapter, metrics: scores[1] } : null,
    };
    let savedTo: string | null = null;
    if (req.adapter) {
      const storage = await OpfsStorage.open(`runs/${req.adapter}`);
      await storage.writeFile(EVAL_FILE, JSON.stringify(report, null, 2) + '\n');
      savedTo = storage.where(EVAL_FILE);
    }
    return { ...report, savedTo };
  });
}
