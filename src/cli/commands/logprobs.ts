// `npm run cli -- logprobs`: scores JSONL inputs with the GPU engine: the log-probability of every
// token after the first, one output line per input line. Bad lines are reported by file, line and
// field and skipped (src/data/score-input.ts); the good ones still run. Tested by
// tests/unit/cli/cli-model.test.ts and tests/unit/data/data-score-input.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import type { CliCommand } from '../../util/args';
import { getString, requireString } from '../../util/args';
import { readScoreInput, TOO_LONG_POLICIES, type TooLongPolicy } from '../../data/score-input';
import { loadCliModel, MODEL_OPTIONS } from '../../model/node-load';
import { checkOutFileOf } from '../out-path';

export const command: CliCommand = {
  name: 'logprobs',
  summary: 'log-probabilities of the tokens of each JSONL line',
  usage: `Usage: npm run cli -- logprobs --model PATH --input F.jsonl --out G.jsonl [options]

${MODEL_OPTIONS}
  --input F.jsonl         one {"text": "..."} or {"ids": [..]} per line
  --out G.jsonl           one line per non-empty input line, in order: {"logprobs": [..]},
                          log p(token t | tokens < t) for every token after the first, or
                          {"error": "..."} for a line that could not be read
  --too-long skip|truncate  a line over the model's context: skip it (default) or score
                          its first tokens; either way with a warning naming the line
  --overwrite             replace an existing --out file (never one of the inputs)`,
  async run(args) {
    const input = requireString(args, 'input');
    const outPath = requireString(args, 'out');
    checkOutFileOf(args, 'logprobs');
    const tooLong = getString(args, 'too-long', 'skip');
    if (!(TOO_LONG_POLICIES as readonly string[]).includes(tooLong)) throw new Error(`--too-long must be one of ${TOO_LONG_POLICIES.join(', ')}, got "${tooLong}"`);
    const content = readFileSync(input, 'utf8');
    // An --adapter comes merged into the weights (loadCliModel), as the studio's Playground runs
    // it: the same kernels, so the same log-probs bit for bit.
    const { loaded, model } = await loadCliModel(args);
    const tok = loaded.tokenizer;
    const parsed = readScoreInput(content, input, {
      encode: (text) => tok.encode(text, { addSpecialTokens: true }),
      vocabSize: loaded.config.vocabSize,
      maxTokens: Math.min(model.maxRows, loaded.config.maxPositions),
      tooLong: tooLong as TooLongPolicy,
    });
    const { seqs, slots } = parsed;
    for (const m of parsed.messages) process.stderr.write(`${m}\n`);
    const t0 = performance.now();
    const r = await model.logprobs(seqs);
    const tokens = seqs.reduce((n, s) => n + s.length, 0);
    const out = slots.map((s) => JSON.stringify('seq' in s ? { logprobs: Array.from(r.logprobs[s.seq]) } : { error: s.error }));
    writeFileSync(outPath, out.join('\n') + (out.length ? '\n' : ''));
    const secs = (performance.now() - t0) / 1000;
    const { skipped, truncated } = parsed;
    const notes = `${skipped ? `, skipped ${skipped} lines` : ''}${truncated ? `, truncated ${truncated}` : ''}`;
    process.stderr.write(`scored ${seqs.length} lines (${tokens} tokens) in ${secs.toFixed(2)} s${notes} -> ${outPath}\n`);
    model.dispose();
    return skipped && !seqs.length ? 1 : 0;
  },
};
