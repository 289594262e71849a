// Converts the original datasets in ../shared/datasets (GSM8K, MBPP) and the SQuAD corpus
// questions in datasets/ into the task JSONL files of src/data/shipped.ts, then loads each file
// back through the validating loader and prints its counts. With --verify, also runs every MBPP
// reference solution against its tests in the Pyodide sandbox (about 10 s) and lists failures.
// Run: npx tsx scripts/convert-datasets.ts [--verify]   (SHARED_DIR overrides where ../shared is)
import { readFileSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDir } from './shared-dir';
import { convertGsm8k } from '../src/data/convert/gsm8k';
import { convertMbpp, sanitizedMbppIds } from '../src/data/convert/mbpp';
import { convertSquadQuestions } from '../src/data/convert/squad';
import { SHIPPED_DATASETS, SQUAD_SPLIT } from '../src/data/shipped';
import { formatLoadReport, loadTasks } from '../src/data/loader';
import type { CodeTask, Task } from '../src/data/schemas';
import { CodeExecEnv } from '../src/envs/code/env';
import { createNodePythonPool } from '../src/tools/python/node-pool';

const shared = join(sharedDir(), 'datasets');
const read = (p: string) => readFileSync(p, 'utf8');

const gsmTrain = convertGsm8k(read(join(shared, 'gsm8k/train.jsonl')), 'train');
const gsmTest = convertGsm8k(read(join(shared, 'gsm8k/test.jsonl')), 'test');
const mbpp = convertMbpp(read(join(shared, 'mbpp/mbpp.jsonl')), sanitizedMbppIds(read(join(shared, 'mbpp/sanitized-mbpp.json'))));
const squad = convertSquadQuestions(read('datasets/squad_corpus_questions.jsonl'), SQUAD_SPLIT);

const byFile: Record<string, Task[]> = {
  'gsm8k_train.jsonl': gsmTrain,
  'gsm8k_eval.jsonl': gsmTest,
  'mbpp_train.jsonl': mbpp.train,
  'mbpp_eval.jsonl': mbpp.test,
  'mbpp_validation.jsonl': mbpp.validation,
  'mbpp_prompt.jsonl': mbpp.prompt,
  'squad_qa_train.jsonl': squad.train,
  'squad_qa_eval.jsonl': squad.eval,
};

for (const d of SHIPPED_DATASETS) {
  const tasks = byFile[d.file];
  if (!tasks) throw new Error(`no converter output for ${d.file}`);
  const path = join('datasets', d.file);
  writeFileSync(path, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
  const check = loadTasks(d.env, read(path), d.file);
  if (check.skipped.length || check.tasks.length !== tasks.length) throw new Error(formatLoadReport(check));
  console.log(`${path}: ${tasks.length} ${d.env} tasks, ${(statSync(path).size / 1e6).toFixed(2)} MB (${d.source}, ${d.license})`);
}

/** Every MBPP reference solution graded by the code_exec environment, as a model answer would be. */
async function verifyMbpp(): Promise<void> {
  const pool = createNodePythonPool({ workers: 1, timeoutMs: 10_000 });
  await pool.ready();
  const env = new CodeExecEnv({ runner: pool, config: { timeoutMs: 10_000 } });
  const t0 = performance.now();
  const failed: string[] = [];
  let n = 0;
  for (const file of ['mbpp_prompt.jsonl', 'mbpp_eval.jsonl', 'mbpp_validation.jsonl', 'mbpp_train.jsonl']) {
    for (const t of byFile[file] as CodeTask[]) {
      n++;
      const r = await env.grade(t, '```python\n' + t.reference_solution + '\n```', 0);
      if (r.parts.correctness !== 1) failed.push(`${t.task_id}: ${(r.notes ?? []).join('; ')}`);
    }
  }
  await pool.close();
  console.log(`MBPP references passing their tests in the sandbox: ${n - failed.length}/${n} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  for (const f of failed) console.log(`  ${f}`);
}

if (process.argv.includes('--verify')) await verifyMbpp();
process.exit(0);
