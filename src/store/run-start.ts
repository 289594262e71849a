// What Start needs besides the config: which model to load (a config model.path of
// public/models/NAME or /models/NAME names a shipped model, anything else means the selected one)
// and where the task data comes from (none for the story env, the dataset open in the Datasets
// panel when the config names it or the trainer is sft, else the env's shipped train file).
// Pure; exercised by tests/unit/store/run-start.test.ts and tests/e2e/studio-run.spec.ts.
import { shippedTaskFile } from '../rl/env-factory';
import type { RlConfig } from '../rl/config-validate';

/** The model Start loads, or a message naming model.path and what to do. */
export function modelForConfig(cfg: RlConfig, models: readonly { name: string; shipped: boolean }[], selected: string): { name: string } | { error: string } {
  const m = /^(?:\.\/)?(?:public\/|\/)?models\/([^/]+)\/?$/.exec(cfg.model.path.trim());
  if (!m) return { name: selected };
  const name = m[1];
  if (models.some((x) => x.name === name)) return { name };
  const shipped = models.filter((x) => x.shipped).map((x) => x.name).join(', ');
  return { error: `config.yaml: model.path ${cfg.model.path} names no model the studio has (shipped: ${shipped}); set model.path to one of them, or to your model's folder name after adding it in the Models panel` };
}

/** The task data Start sends. */
export type DataChoice =
  | { kind: 'none' }
  /** The dataset open in the Datasets panel (its file name). */
  | { kind: 'opened'; fileName: string }
  /** A shipped file under datasets/ (its name there). */
  | { kind: 'shipped'; file: string };

const baseName = (p: string): string => p.split(/[\\/]/).pop() ?? p;

/** Where Start takes the data from, given the file open in the Datasets panel (null: none), or what to do. */
export function dataForConfig(cfg: RlConfig, opened: string | null): DataChoice | { error: string } {
  const named = cfg.data.dataset;
  if (named !== null) {
    if (opened !== null && baseName(opened) === baseName(named)) return { kind: 'opened', fileName: opened };
    return { error: `config.yaml: data.dataset is ${named}${opened ? `, but the Datasets panel has ${opened} open` : ''}; open ${baseName(named)} in the Datasets panel, or remove data.dataset to use the env's shipped file` };
  }
  if (cfg.trainer === 'sft') {
    if (opened !== null) return { kind: 'opened', fileName: opened };
    return { error: 'config.yaml: trainer sft trains on a chat / text JSONL file; open one in the Datasets panel first' };
  }
  if (cfg.data.env === 'story') return { kind: 'none' };
  const shipped = shippedTaskFile(cfg, 'train');
  if (shipped) return { kind: 'shipped', file: baseName(shipped) };
  if (opened !== null) return { kind: 'opened', fileName: opened };
  return { error: `config.yaml: data.env ${cfg.data.env} ships no train file; open a task file in the Datasets panel and name it in data.dataset` };
}
