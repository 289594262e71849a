// GSM8K -> math tasks: the final answer is what follows `####` in the reference answer, commas
// stripped; the full reference (reasoning, calculator annotations, `####` line) is kept as
// `solution`. Used by scripts/convert-datasets.ts; tested by tests/unit/data/data-convert.test.ts.
import { requireJsonlObjects } from '../jsonl';
import type { MathTask } from '../schemas';

/** The text after the last `####`, commas removed and trimmed; null without a `####` line. */
export function gsm8kFinalAnswer(reference: string): string | null {
  const at = reference.lastIndexOf('####');
  if (at < 0) return null;
  const ans = reference.slice(at + 4).trim().replace(/,/g, '');
  return ans === '' ? null : ans;
}

/** One task per line of an original GSM8K file (`{"question", "answer"}` per line). */
export function convertGsm8k(jsonl: string, split: string): MathTask[] {
  const tasks: MathTask[] = [];
  for (const { line, value } of requireJsonlObjects(jsonl, `gsm8k ${split}`)) {
    const o = value as { question: string; answer: string };
    const answer = gsm8kFinalAnswer(o.answer);
    if (answer === null) throw new Error(`gsm8k ${split}:${line}: the answer has no "#### <number>" line`);
    tasks.push({
      task_id: `gsm8k/${split}/${tasks.length}`,
      question: o.question,
      answer,
      solution: o.answer,
      metadata: { source: 'gsm8k', split, index: tasks.length },
    });
  }
  return tasks;
}
