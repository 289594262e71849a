// The engine worker's `score-text` request: the log-probability of every token of a text after the
// first, for a loaded model or that model with a run's adapter (policies.ts), exactly as
// `npm run cli -- logprobs` scores a {"text"} line: the tokenizer's encode with its special tokens
// (BOS where the model has one), then GpuModel.logprobs. Runs one job at a time with chat and eval.
// Exercised by tests/e2e/studio-first-run.spec.ts (compared with the CLI) and studio-playground.spec.ts.
import { tokenPieces } from './decode';
import type { Policies, Serial } from './policies';
import type { EngineRequest, EngineResults } from './protocol';

type ScoreRequest = Extract<EngineRequest, { kind: 'score-text' }>;

export function scoreText(policies: Policies, serial: Serial, req: ScoreRequest): Promise<EngineResults['score-text']> {
  return serial.run(async () => {
    const m = policies.model(req.modelId);
    return policies.use(req.modelId, req.adapter, async (model) => {
      // As cli/commands/logprobs.ts: encode with special tokens, at most the model's context.
      const ids = m.loaded.tokenizer.encode(req.text, { addSpecialTokens: true });
      const most = Math.min(model.maxRows, m.loaded.config.maxPositions);
      if (ids.length > most) throw new Error(`the text is ${ids.length} tokens, more than the model's ${most}; shorten it`);
      if (ids.length < 2) throw new Error(`the text is ${ids.length} token${ids.length === 1 ? '' : 's'}; scoring needs at least 2 (the first has no log-prob)`);
      const r = await model.logprobs([ids]);
      return { ids, pieces: tokenPieces(m.loaded.tokenizer, ids), logprobs: Array.from(r.logprobs[0]) };
    });
  });
}
