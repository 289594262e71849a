// The `scan-runs` and `export-run` requests: every run folder kept in OPFS runs/ID/ summarised
// (model it trained, trainer, steps logged, whether it holds an adapter/ or a model/ export), and
// a zip of one run's export (the PEFT folder exactly as the engine wrote it, or the full model)
// and / or its config.yaml + metrics.jsonl, built here with fflate so the page never does it.
// Exercised by tests/e2e/studio-export.spec.ts (and the Models panel's adapters list).
import { zipSync, type Zippable } from 'fflate';
import { parse } from 'yaml';
import { CONFIG_FILE, METRICS_FILE } from '../../run/layout';
import { OpfsStorage } from '../../run/opfs-storage';
import { listFiles, readText } from '../../run/storage';

export const RUNS_DIR = 'runs';

export interface RunSummary {
  runId: string;
  /** config.yaml's model.path ("" when unreadable), and its last path part (the studio's model name). */
  modelPath: string;
  modelName: string;
  trainer: string;
  /** Rows in metrics.jsonl. */
  steps: number;
  /** adapter/ (PEFT, LoRA mode) or model/ (full fine-tune), or null before the run has exported. */
  exported: 'adapter' | 'model' | null;
  /** adapter_config.json's r, lora_alpha and target_modules when an adapter is there. */
  adapter: { r: number; alpha: number; targets: string[] } | null;
  /** Why the folder cannot be read as a run (null when fine). */
  problem: string | null;
}

export interface RunExport {
  runId: string;
  /** 'weights': the adapter (or model) folder; 'logs': config.yaml + metrics.jsonl; 'both': the folder with run/ inside. */
  parts: 'weights' | 'logs' | 'both';
  fileName: string;
  /** Paths inside the zip, in order. */
  entries: string[];
  bytes: Uint8Array;
}

export async function scanRuns(): Promise<RunSummary[]> {
  const root = await OpfsStorage.open(RUNS_DIR);
  const out: RunSummary[] = [];
  for (const runId of (await root.list('')).sort()) {
    if (runId.endsWith('.tmp') || runId.endsWith('.old')) continue;
    out.push(await summarise(await OpfsStorage.open(`${RUNS_DIR}/${runId}`), runId));
  }
  return out;
}

async function summarise(s: OpfsStorage, runId: string): Promise<RunSummary> {
  const r: RunSummary = { runId, modelPath: '', modelName: '', trainer: '?', steps: 0, exported: null, adapter: null, problem: null };
  const yaml = await readText(s, CONFIG_FILE);
  if (yaml === null) r.problem = `${s.where(CONFIG_FILE)} is missing: the run never started`;
  else {
    try {
      const c = parse(yaml) as { trainer?: unknown; model?: { path?: unknown } } | null;
      r.trainer = typeof c?.trainer === 'string' ? c.trainer : 'grpo';
      r.modelPath = typeof c?.model?.path === 'string' ? c.model.path : '';
      r.modelName = r.modelPath.replace(/\/+$/, '').split('/').pop() ?? '';
    } catch (e) {
      r.problem = `${s.where(CONFIG_FILE)} is not valid YAML (${(e as Error).message})`;
    }
  }
  const metrics = await readText(s, METRICS_FILE);
  r.steps = metrics ? metrics.split('\n').filter((l) => l.trim()).length : 0;
  if (await s.exists('adapter/adapter_config.json')) {
    r.exported = 'adapter';
    try {
      const a = JSON.parse((await readText(s, 'adapter/adapter_config.json'))!) as { r?: number; lora_alpha?: number; target_modules?: string[] };
      r.adapter = { r: Number(a.r), alpha: Number(a.lora_alpha), targets: Array.isArray(a.target_modules) ? a.target_modules.map(String) : [] };
    } catch (e) {
      r.problem = `${s.where('adapter/adapter_config.json')} is not valid JSON (${(e as Error).message})`;
    }
  } else if (await s.exists('model/config.json')) r.exported = 'model';
  return r;
}

/** The zip of a run's export and / or logs; errors name the missing file and what to do. */
export async function exportRun(runId: string, parts: RunExport['parts']): Promise<RunExport> {
  const root = await OpfsStorage.open(RUNS_DIR);
  if (!(await root.exists(runId))) throw new Error(`opfs:/${RUNS_DIR}/${runId} does not exist; pick a run from the list`);
  const s = await OpfsStorage.open(`${RUNS_DIR}/${runId}`);
  const zip: Zippable = {};
  const entries: string[] = [];
  const put = (path: string, bytes: Uint8Array) => {
    // Safetensors data does not compress much: store it, deflate the rest.
    zip[path] = [bytes, { level: path.endsWith('.safetensors') ? 0 : 6 }];
    entries.push(path);
  };
  const kind = (await s.exists('adapter/adapter_config.json')) ? 'adapter' : (await s.exists('model/config.json')) ? 'model' : null;
  const base = parts === 'logs' ? `${runId}-run` : `${runId}-${kind ?? 'adapter'}`;
  if (parts !== 'logs') {
    if (!kind) throw new Error(`${s.where('adapter')} is missing (and no model/): the run has not exported yet; wait for it to finish, or stop it (a stop exports)`);
    for (const f of await listFiles(s, kind)) put(`${base}/${f}`, (await s.read(`${kind}/${f}`))!);
  }
  if (parts !== 'weights') {
    const logsAt = parts === 'both' ? `${base}/run` : base;
    for (const f of [CONFIG_FILE, METRICS_FILE]) {
      const b = await s.read(f);
      if (!b) throw new Error(`${s.where(f)} is missing; the run folder is incomplete (download the weights alone instead)`);
      put(`${logsAt}/${f}`, b);
    }
  }
  return { runId, parts, fileName: `${base}.zip`, entries, bytes: zipSync(zip) };
}
