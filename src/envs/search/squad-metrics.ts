// Answer scoring of the SQuAD v1.1 evaluation script: normalise (lower case, drop ASCII
// punctuation, drop the articles a/an/the, collapse whitespace), exact match, and token F1 from
// the bag-of-tokens overlap; each takes the max over the gold answers. Tested by
// tests/unit/envs/env-search.test.ts against hand-computed values.

const PUNCT = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

export function normalizeAnswer(s: string): string {
  const lower = s.toLowerCase();
  const noPunct = [...lower].filter((ch) => !PUNCT.has(ch)).join('');
  // Python's \b is Unicode-aware (é is a word character); JS's is not without these lookarounds.
  const noArticles = noPunct.replace(/(?<![\p{L}\p{N}_])(a|an|the)(?![\p{L}\p{N}_])/gu, ' ');
  return noArticles.split(/\s+/).filter(Boolean).join(' ');
}

export function exactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}

export function f1Score(prediction: string, gold: string): number {
  const p = normalizeAnswer(prediction).split(' ').filter(Boolean);
  const g = normalizeAnswer(gold).split(' ').filter(Boolean);
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of p) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      same++;
      counts.set(t, n - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}

/** max over gold answers of metric(prediction, gold); 0 without golds. */
export function maxOverGolds(metric: (p: string, g: string) => number, prediction: string, golds: readonly string[]): number {
  return golds.reduce((best, g) => Math.max(best, metric(prediction, g)), 0);
}
