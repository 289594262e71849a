// The rollout table's rows: the columns a RolloutRecord shows (reward, advantage, turns, tool calls,
// generated length, finish reason, error) and the filter (text in the task / text / error, a
// finish reason, errors only). Pure; exercised by tests/unit/rl/rollout-rows.test.ts and
// tests/e2e/studio-run.spec.ts.
import type { RolloutRecord } from '../../rl/rollout-log';

export interface RolloutRow {
  /** Stable key: step.prompt.sample. */
  key: string;
  record: RolloutRecord;
  /** Tokens the policy produced (mask 1). */
  length: number;
  toolCalls: number;
  failedCalls: number;
}

export interface RolloutFilter {
  text: string;
  finish: string;
  errorsOnly: boolean;
}

export const rolloutKey = (r: RolloutRecord): string => `${r.step}.${r.prompt_index}.${r.sample}`;

export function rolloutRow(r: RolloutRecord): RolloutRow {
  let length = 0;
  for (const m of r.mask) length += m;
  return { key: rolloutKey(r), record: r, length, toolCalls: r.tool_calls.length, failedCalls: r.tool_calls.filter((c) => !c.ok).length };
}

/** Rows passing the filter, newest first. */
export function filterRollouts(records: readonly RolloutRecord[], f: RolloutFilter): RolloutRow[] {
  const q = f.text.trim().toLowerCase();
  const out: RolloutRow[] = [];
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (f.finish && r.finish_reason !== f.finish) continue;
    if (f.errorsOnly && !r.error && !r.tool_calls.some((c) => !c.ok)) continue;
    if (q && !`${r.task_id}\n${r.text}\n${r.error ?? ''}`.toLowerCase().includes(q)) continue;
    out.push(rolloutRow(r));
  }
  return out;
}

/** The finish reasons seen, for the filter's choices. */
export function finishReasons(records: readonly RolloutRecord[]): string[] {
  return [...new Set(records.map((r) => r.finish_reason))].sort();
}

export const num = (v: number | null, digits = 3): string => (v === null || !Number.isFinite(v) ? '—' : v.toFixed(digits));
