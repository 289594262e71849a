// The validating task loader: parses a JSONL file line by line, checks every field against the
// environment's schema (src/data/schemas.ts) and keeps the good lines; each bad line is reported
// with its line number, field and reason (`mbpp_train.jsonl:12: "tests" must be ...`) and counted,
// never dropped silently. Lines come from src/data/jsonl.ts (BOM and CRLF accepted).
// Tested by tests/unit/data/data-loader.test.ts.
import { jsonlLines, parseJsonObjectLine } from './jsonl';
import { expectation, TASK_FIELDS, type EnvName, type TaskByEnv } from './schemas';

export interface LineProblem {
  /** 1-based line number in the file. */
  line: number;
  /** The offending field, or "" when the line itself is bad (not JSON, not an object). */
  field: string;
  reason: string;
}

export interface LoadResult<T> {
  tasks: T[];
  /** Lines that were not loaded, and why (first problem of each line). */
  skipped: LineProblem[];
  /** Fields the schema does not know (kept out of the task; the line still loads). */
  warnings: LineProblem[];
  /** Non-blank lines seen: tasks.length + skipped.length. */
  total: number;
  fileName: string;
}

export interface LoadOptions {
  /** Longest accepted line in characters (longer lines are skipped, not parsed). */
  maxLineChars?: number;
}

/** `file:line: "field" reason` as the user reads it. */
export function formatProblem(fileName: string, p: LineProblem): string {
  return `${fileName}:${p.line}: ${p.field ? `"${p.field}" ` : ''}${p.reason}`;
}

export function loadTasks<E extends EnvName>(env: E, text: string, fileName: string, opts: LoadOptions = {}): LoadResult<TaskByEnv[E]> {
  const specs = TASK_FIELDS[env];
  if (!specs) throw new Error(`loadTasks: unknown environment "${env}"; use one of ${Object.keys(TASK_FIELDS).join(', ')}`);
  const known = new Set(specs.map((s) => s.name));
  const maxLine = opts.maxLineChars ?? 1_000_000;
  const out: LoadResult<TaskByEnv[E]> = { tasks: [], skipped: [], warnings: [], total: 0, fileName };
  const seenIds = new Map<string, number>();
  for (const { line, text: raw } of jsonlLines(text)) {
    out.total++;
    const skip = (field: string, reason: string) => out.skipped.push({ line, field, reason });
    if (raw.length > maxLine) {
      skip('', `line is ${raw.length} characters long (limit ${maxLine})`);
      continue;
    }
    const parsed = parseJsonObjectLine(raw);
    if (!parsed.ok) {
      skip('', parsed.reason);
      continue;
    }
    const rec = parsed.value;
    const task: Record<string, unknown> = {};
    let problem: { field: string; reason: string } | null = null;
    for (const spec of specs) {
      const v = rec[spec.name];
      if (v === undefined || v === null) {
        if (spec.required) {
          problem = { field: spec.name, reason: `is missing (required: ${expectation(spec)})` };
          break;
        }
        continue;
      }
      const why = spec.check(v);
      if (why) {
        problem = { field: spec.name, reason: why };
        break;
      }
      task[spec.name] = spec.normalize ? spec.normalize(v) : v;
    }
    if (problem) {
      skip(problem.field, problem.reason);
      continue;
    }
    const id = task.task_id as string;
    const first = seenIds.get(id);
    if (first !== undefined) {
      skip('task_id', `duplicates the task_id "${id}" of line ${first}`);
      continue;
    }
    seenIds.set(id, line);
    task.metadata ??= {};
    for (const key of Object.keys(rec)) {
      if (!known.has(key)) out.warnings.push({ line, field: key, reason: `is not a ${env} task field (ignored); known: ${[...known].join(', ')}` });
    }
    out.tasks.push(task as unknown as TaskByEnv[E]);
  }
  return out;
}

/** One paragraph for the user: counts, then up to `maxLines` problems (the rest counted). */
export function formatLoadReport(r: LoadResult<unknown>, maxLines = 10): string {
  const head = `${r.fileName}: loaded ${r.tasks.length} of ${r.total} tasks` + (r.skipped.length ? `, skipped ${r.skipped.length}` : '');
  const lines = [head];
  const list = (kind: string, ps: LineProblem[]) => {
    for (const p of ps.slice(0, maxLines)) lines.push(`  ${kind} ${formatProblem(r.fileName, p)}`);
    if (ps.length > maxLines) lines.push(`  ... and ${ps.length - maxLines} more ${kind === 'skipped' ? 'skipped lines' : 'warnings'}`);
  };
  list('skipped', r.skipped);
  list('warning', r.warnings);
  return lines.join('\n');
}

/** Throws when nothing loaded (an empty or wrong file is a user error, not an empty dataset). */
export function requireTasks<T>(r: LoadResult<T>): T[] {
  if (!r.tasks.length) {
    throw new Error(`${formatLoadReport(r, 3)}\nNo task loaded: check that the file is JSONL with one task object per line and the fields of its environment.`);
  }
  return r.tasks;
}
