// Who produced each token of an episode, from its loss mask: the prompt (mask 0 before the first
// generated token, a teacher-forced prefill included), the policy (mask 1, trained) or text inserted
// after generation began (mask 0: tool output, chat-template glue). Runs of one kind become one span for the detail
// view, each token keeping its text and sampling log-prob. Pure; exercised by
// tests/unit/rl/rollout-rows.test.ts and tests/e2e/studio-run.spec.ts.

export type TokenSource = 'prompt' | 'policy' | 'inserted';

export interface TokenCell {
  index: number;
  id: number;
  text: string;
  source: TokenSource;
  logprob: number | null;
}

export function tokenCells(tokens: readonly number[], mask: readonly number[], logprobs: readonly (number | null)[], pieces: readonly string[] | null): TokenCell[] {
  const first = mask.indexOf(1);
  return tokens.map((id, i) => ({
    index: i,
    id,
    text: pieces?.[i] ?? `[${id}]`,
    source: mask[i] === 1 ? 'policy' : first < 0 || i < first ? 'prompt' : 'inserted',
    logprob: mask[i] === 1 ? (logprobs[i] ?? null) : null,
  }));
}
