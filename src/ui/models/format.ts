// Number formatting of the Models and Export panels: parameter counts as 263K / 1.54B.
// Exercised through tests/e2e/studio-models.spec.ts.

export function formatCount(n: number): string {
  if (n < 1e3) return String(n);
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 2 : 1).replace(/\.?0+$/, '')}K`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1).replace(/\.?0+$/, '')}M`;
  return `${(n / 1e9).toFixed(2).replace(/\.?0+$/, '')}B`;
}
