// MBPP -> code_exec tasks by the official task-id splits (1-10 prompt, 11-510 test, 511-600
// validation, 601-974 train); the starter code is the signature of the function the tests call;
// tasks of the hand-verified subset are flagged `metadata.sanitized`. Used by
// scripts/convert-datasets.ts; tested by tests/unit/data/data-convert.test.ts.
import { requireJsonlObjects, stripBom } from '../jsonl';
import type { CodeTask } from '../schemas';

export type MbppSplit = 'prompt' | 'test' | 'validation' | 'train';

/** The official split of an MBPP task id (README of the dataset). */
export function mbppSplit(taskId: number): MbppSplit {
  if (taskId >= 1 && taskId <= 10) return 'prompt';
  if (taskId <= 510) return 'test';
  if (taskId <= 600) return 'validation';
  if (taskId <= 974) return 'train';
  throw new Error(`MBPP task id ${taskId} is outside 1..974`);
}

interface MbppRecord {
  task_id: number;
  text: string;
  code: string;
  test_list: string[];
  test_setup_code: string;
  challenge_test_list: string[];
}

/** `def name(args):` of the function defined in `code` that the tests mention first, or "". */
export function starterFromSolution(code: string, tests: string[]): string {
  const defs = [...code.matchAll(/^def\s+([A-Za-z_]\w*)\s*\(.*\)\s*(?:->[^:]*)?:/gm)].map((m) => ({ name: m[1], line: m[0].trim() }));
  const joined = tests.join('\n');
  let best: { at: number; line: string } | null = null;
  for (const d of defs) {
    const at = joined.search(new RegExp(`\\b${d.name}\\s*\\(`));
    if (at >= 0 && (!best || at < best.at)) best = { at, line: d.line };
  }
  return best ? `${best.line}\n    pass\n` : '';
}

const unixLines = (s: string) => s.replace(/\r\n?/g, '\n');

/** Every MBPP task, grouped by official split; `sanitizedIds` flags the hand-verified ones. */
export function convertMbpp(jsonl: string, sanitizedIds: ReadonlySet<number>): Record<MbppSplit, CodeTask[]> {
  const out: Record<MbppSplit, CodeTask[]> = { prompt: [], test: [], validation: [], train: [] };
  for (const { value } of requireJsonlObjects(jsonl, 'mbpp')) {
    const o = value as unknown as MbppRecord;
    const split = mbppSplit(o.task_id);
    const reference = unixLines(o.code);
    const task: CodeTask = {
      task_id: `mbpp/${o.task_id}`,
      prompt: o.text.trim(),
      starter_code: starterFromSolution(reference, o.test_list),
      tests: o.test_list.map((t) => t.trim()),
      reference_solution: reference,
      metadata: { source: 'mbpp', split, mbpp_task_id: o.task_id, sanitized: sanitizedIds.has(o.task_id) },
    };
    const setup = unixLines(o.test_setup_code ?? '').trim();
    if (setup) task.test_setup_code = setup;
    if (o.challenge_test_list?.length) task.metadata.challenge_tests = o.challenge_test_list.map((t) => t.trim());
    out[split].push(task);
  }
  return out;
}

/** Task ids of sanitized-mbpp.json (a JSON array of records with `task_id`). */
export function sanitizedMbppIds(json: string): Set<number> {
  return new Set((JSON.parse(stripBom(json)) as { task_id: number }[]).map((r) => r.task_id));
}
