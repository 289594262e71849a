// Typical episode lengths for the Config panel's step-time estimate: from a previous run of the same
// model (its rollouts.jsonl: mean prompt tokens, before the first trained token, mean tokens after
// it (training packs whole sequences, so the mean sets its cost), and per step the most tokens one
// episode sampled (decode runs until the last episode ends); else its metrics.jsonl's completions/mean_length), or from the Datasets preview's prompt
// lengths (completion then at its upper bound). Pure; tested by tests/unit/run/typical-lengths.test.ts.
import { jsonlLines } from '../data/jsonl';

export interface TypicalLengths {
  /** Mean prompt tokens (everything before the first sampled token). */
  prompt: number;
  /** Mean tokens after the prompt (sampled, tool responses); null: not known, use the config's upper bound. */
  completion: number | null;
  /** Per step, the most tokens one episode sampled (decode runs until the last episode ends), averaged over steps; null: not known. */
  decoded: number | null;
  /** Where the figures come from, in words ("mean of run X's 64 episodes"). */
  from: string;
}

const mean = (a: number[]): number => a.reduce((x, y) => x + y, 0) / a.length;

/** Each parsable JSON object line of a JSONL text (bad lines are left out: logs may end mid-line). */
function objects(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const { text: t } of jsonlLines(text)) {
    try {
      const v = JSON.parse(t) as unknown;
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // a cut-off last line
    }
  }
  return out;
}

/** Lengths of run `runId` from its rollouts.jsonl, else prompt lengths known elsewhere plus its metrics' completions/mean_length; null when neither says. */
export function lengthsFromRun(runId: string, rolloutsText: string | null, metricsText: string | null, promptFallback: TypicalLengths | null = null): TypicalLengths | null {
  const eps = objects(rolloutsText ?? '').filter((r) => Array.isArray(r.tokens) && Array.isArray(r.mask));
  const split = eps.map((r) => {
    const mask = r.mask as number[], first = mask.indexOf(1);
    return first < 0 ? null : { step: typeof r.step === 'number' ? r.step : 0, prompt: first, completion: (r.tokens as number[]).length - first, sampled: mask.reduce((a, b) => a + b, 0) };
  }).filter((x): x is { step: number; prompt: number; completion: number; sampled: number } => x !== null);
  if (split.length) {
    const steps = new Map<number, number>();
    for (const e of split) steps.set(e.step, Math.max(steps.get(e.step) ?? 0, e.sampled));
    const per = [...steps.values()];
    return {
      prompt: Math.round(mean(split.map((e) => e.prompt))), completion: Math.round(mean(split.map((e) => e.completion))),
      decoded: Math.round(mean(per)),
      from: `mean of run ${runId}'s ${split.length} logged episodes over ${per.length} steps`,
    };
  }
  const lens = objects(metricsText ?? '').map((m) => m['completions/mean_length']).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (!lens.length || !promptFallback) return null;
  return { prompt: promptFallback.prompt, completion: Math.round(mean(lens)), decoded: null, from: `${promptFallback.from}; completions/mean_length of run ${runId}` };
}

/** Prompt lengths of the Datasets panel's previewed tasks (the run's first inputs); completion unknown. */
export function lengthsFromPreview(fileName: string, promptLengths: number[]): TypicalLengths | null {
  if (!promptLengths.length) return null;
  return { prompt: Math.round(mean(promptLengths)), completion: null, decoded: null, from: `mean of the ${promptLengths.length} previewed tasks of ${fileName}` };
}
