// `npm run bench -- tools`: figures for the agent's tools in Node. Pyodide cold start (a new
// sandbox worker, from scratch and from the Pyodide snapshot), warm run latency (median of small runs), respawn time after a timeout kill,
// grading time of an MBPP-style task, pool throughput in runs/s with 1, 2 and 4 workers, and BM25
// recall@1/@5 of the gold paragraph on SQuAD dev questions.
// Options: --runs N (throughput runs per pool size, 40), --questions N (every Nth question, 10),
// --src DIR (load the pool from another checkout's src/, e.g. /work/main/src, to compare),
// --sizes 1,2,4 (pool sizes of the throughput runs).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getNumber, getString, parseArgs } from '../src/util/args';
import type { PythonPool } from '../src/tools/python/pool';
import type { PoolConfig } from '../src/tools/python/types';
import { CorpusSearch, parseCorpusJsonl } from '../src/tools/search/corpus';

const args = parseArgs(process.argv.slice(2));
const RUNS = getNumber(args, 'runs', 40);
const EVERY = getNumber(args, 'questions', 10);
const SIZES = getString(args, 'sizes', '1,2,4').split(',').map(Number);
/** Generous start budget: on a loaded shared machine Pyodide can take tens of seconds to start. */
const START_MS = 300_000;
const SRC = resolve(getString(args, 'src', new URL('../src', import.meta.url).pathname));
const { createNodePythonPool } = (await import(pathToFileURL(`${SRC}/tools/python/node-pool.ts`).href)) as {
  createNodePythonPool(config?: Partial<PoolConfig>): PythonPool;
};
// A small CPU-bound task, like a model's arithmetic check.
const TASK = 'total = 0\nfor i in range(20000):\n    total += i * i\nprint(total)';

async function python(): Promise<void> {
  // From scratch, then from the Pyodide snapshot (made first if this machine has none yet).
  const scratch = createNodePythonPool({ workers: 1, startTimeoutMs: START_MS, snapshot: false });
  let t0 = performance.now();
  const [plain] = await scratch.ready();
  console.log(`pyodide ${plain.pyodideVersion} (Python ${plain.pythonVersion}) cold start from scratch: ${(performance.now() - t0).toFixed(0)} ms to a ready worker (loadPyodide + prelude ${plain.startMs.toFixed(0)} ms), heap ${(plain.heapBytes / 2 ** 20).toFixed(0)} MiB`);
  await scratch.close();
  const cold = createNodePythonPool({ workers: 1, startTimeoutMs: START_MS });
  t0 = performance.now();
  const [info] = await cold.ready();
  const snap = cold.stats();
  console.log(`cold start ${info.fromSnapshot ? 'from the snapshot' : `from scratch (${snap.snapshotError ?? 'no snapshot'})`}: ${(performance.now() - t0).toFixed(0)} ms to a ready worker (making the snapshot included when there was none; start in the worker ${info.startMs.toFixed(0)} ms)`);
  const lat: number[] = [];
  for (let i = 0; i < 30; i++) lat.push((await cold.run('print(1 + 1)')).durationMs);
  lat.sort((a, b) => a - b);
  const task: number[] = [];
  for (let i = 0; i < 10; i++) task.push((await cold.run(TASK)).durationMs);
  task.sort((a, b) => a - b);
  console.log(`warm run latency: print(1+1) median ${lat[15].toFixed(1)} ms (p90 ${lat[27].toFixed(1)}); 20k-iteration loop median ${task[5].toFixed(1)} ms`);
  const grade: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await cold.runTests('def sq(x):\n    return x * x', ['assert sq(3) == 9', 'assert sq(4) == 16', 'assert sq(-2) == 4']);
    grade.push(performance.now() - t);
  }
  grade.sort((a, b) => a - b);
  const respawn: number[] = [];
  for (let i = 0; i < 3; i++) {
    const killed = await cold.run('import time\ntime.sleep(100)', { timeoutMs: 200 });
    const t = performance.now();
    const next = await cold.run('print(1)');
    respawn.push(performance.now() - t - next.durationMs);
    if (killed.errorType !== 'Timeout') console.log(`respawn probe: expected a Timeout, got ${killed.errorType}`);
  }
  respawn.sort((a, b) => a - b);
  console.log(`grading (3 asserts, first one plans the tests) median ${grade[2].toFixed(1)} ms; respawn after a timeout kill median ${respawn[1].toFixed(0)} ms (${respawn.map((x) => x.toFixed(0)).join('/')})`);
  await cold.close();

  for (const workers of SIZES) {
    const pool = createNodePythonPool({ workers, startTimeoutMs: START_MS });
    await pool.ready();
    const t = performance.now();
    const results = await Promise.all(Array.from({ length: RUNS }, () => pool.run(TASK)));
    const s = (performance.now() - t) / 1000;
    const bad = results.filter((r) => r.errorType !== null).length;
    console.log(`pool throughput, ${workers} worker(s): ${(RUNS / s).toFixed(1)} runs/s (${RUNS} runs in ${s.toFixed(2)} s${bad ? `, ${bad} failed` : ''})`);
    await pool.close();
  }
}

function corpus(): void {
  const cs = new CorpusSearch(parseCorpusJsonl(readFileSync('datasets/squad_corpus.jsonl', 'utf8')));
  const qs = readFileSync('datasets/squad_corpus_questions.jsonl', 'utf8').trim().split('\n')
    .map((l) => JSON.parse(l) as { question: string; doc_id: string })
    .filter((_, i) => i % EVERY === 0);
  let r1 = 0, r5 = 0;
  const t = performance.now();
  for (const q of qs) {
    const top = cs.rank(q.question, 5);
    if (top[0] === q.doc_id) r1++;
    if (top.includes(q.doc_id)) r5++;
  }
  const ms = (performance.now() - t) / qs.length;
  console.log(`BM25 over SQuAD dev (${cs.docs.length} paragraphs), ${qs.length} questions: recall@1 ${(r1 / qs.length).toFixed(3)}, recall@5 ${(r5 / qs.length).toFixed(3)}, ${ms.toFixed(2)} ms/query`);
}

console.log(`python pool from ${SRC}`);
corpus();
await python();
process.exit(0);
