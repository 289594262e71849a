// The run folders kept in the browser (OPFS runs/<runId>/) that hold a finished adapter, with the
// model their config.yaml names: what the Playground and Eval panels offer to put on a model.
// Exercised by tests/e2e/studio-playground.spec.ts.
import { parse } from 'yaml';
import { ADAPTER_CONFIG, ADAPTER_WEIGHTS } from '../model/io/peft';
import { CONFIG_FILE } from './layout';
import { OpfsStorage } from './opfs-storage';
import { readText } from './storage';

export interface AdapterRun {
  runId: string;
  /** model.path of the run's config.yaml (null when it has none or it does not parse). */
  model: string | null;
}

/** Every OPFS run with adapter/adapter_config.json and adapter/adapter_model.safetensors, newest name last. */
export async function listAdapterRuns(): Promise<AdapterRun[]> {
  const runs = await OpfsStorage.open('runs');
  const out: AdapterRun[] = [];
  for (const runId of (await runs.list('')).sort()) {
    const files = await runs.list(`${runId}/adapter`);
    if (!files.includes(ADAPTER_WEIGHTS) || !files.includes(ADAPTER_CONFIG)) continue;
    out.push({ runId, model: modelOf(await readText(runs, `${runId}/${CONFIG_FILE}`)) });
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
