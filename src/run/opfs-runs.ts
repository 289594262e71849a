// The run folders kept in the browser (OPFS runs/<runId>/) that hold a finished adapter, with the
// model their config.yaml names and their last evaluation (eval.json): what the Playground and
// Eval panels offer to put on a model. Exercised by tests/e2e/studio-playground.spec.ts and
// studio-eval.spec.ts.
import { parse } from 'yaml';
import { ADAPTER_CONFIG, ADAPTER_WEIGHTS } from '../model/io/peft';
import type { EvalReport } from '../rl/eval-run';
import { CONFIG_FILE, EVAL_FILE } from './layout';
import { OpfsStorage } from './opfs-storage';
import { readText } from './storage';

export interface AdapterRun {
  runId: string;
  /** model.path of the run's config.yaml (null when it has none or it does not parse). */
  model: string | null;
  /** The run's eval.json (the Eval panel writes it), or null. */
  evaluation: EvalReport | null;
}

/** Every OPFS run with adapter/adapter_config.json and adapter/adapter_model.safetensors, newest name last. */
export async function listAdapterRuns(): Promise<AdapterRun[]> {
  const runs = await OpfsStorage.open('runs');
  const out: AdapterRun[] = [];
  for (const runId of (await runs.list('')).sort()) {
    const files = await runs.list(`${runId}/adapter`);
    if (!files.includes(ADAPTER_WEIGHTS) || !files.includes(ADAPTER_CONFIG)) continue;
    out.push({ runId, model: modelOf(await readText(runs, `${runId}/${CONFIG_FILE}`)), evaluation: reportOf(await readText(runs, `${runId}/${EVAL_FILE}`)) });
  }
  return out;
}

function modelOf(yaml: string | null): string | null {
  if (!yaml) return null;
  try {
    const path = (parse(yaml) as { model?: { path?: unknown } } | null)?.model?.path;
    return typeof path === 'string' ? path : null;
  } catch {
    return null;
  }
}

function reportOf(json: string | null): EvalReport | null {
  if (!json) return null;
  try {
    const r = JSON.parse(json) as EvalReport;
    return r && typeof r.base === 'object' ? r : null;
  } catch {
    return null;
  }
}
