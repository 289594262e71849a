// `npm run cli -- logprobs`: scores JSONL inputs with the GPU engine: the log-probability of every
// token after the first, one output line per input line. Bad lines are reported by line number
// and skipped. Tested by tests/unit/cli-model.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import type { CliCommand } from '../args';
import { requireString } from '../args';
import { loadCliModel, MODEL_OPTIONS } from '../load-model';
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
  --overwrite             replace an existing --out file (never one of the inputs)`,
  async run(args) {
    const input = requireString(args, 'input');
    const outPath = requireString(args, 'out');
    checkOutFileOf(args, 'logprobs');
    const lines = readFileSync(input, 'utf8').split('\n');
    const { loaded, model } = await loadCliModel(args);
    const tok = loaded.tokenizer, V = loaded.config.vocabSize;
    const seqs: number[][] = [];
    const errors: string[] = [];
    /** Per non-empty input line: the index of its sequence, or its error. */
    const slots: (number | string)[] = [];
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      const where = `${input}:${i + 1}`;
      let obj: unknown;
      try {
        obj = JSON.parse(line);
      } catch (e) {
        errors.push(`${where}: not JSON (${(e as Error).message})`);
        slots.push(errors[errors.length - 1]);
        return;
      }
      const o = obj as { text?: unknown; ids?: unknown };
      let ids: number[];
      if (typeof o.text === 'string') ids = tok.encode(o.text, { addSpecialTokens: true });
      else if (Array.isArray(o.ids) && o.ids.every((x) => Number.isInteger(x) && x >= 0 && x < V)) ids = o.ids as number[];
      else {
        errors.push(`${where}: needs "text" (a string) or "ids" (integers in [0, ${V}))`);
        slots.push(errors[errors.length - 1]);
        return;
      }
      if (ids.length < 2) errors.push(`${where}: warning: fewer than 2 tokens, so no log-probs`);
      slots.push(seqs.length);
      seqs.push(ids);
    });
    for (const e of errors) process.stderr.write(`${e}\n`);
    const t0 = performance.now();
    const r = await model.logprobs(seqs);
    const tokens = seqs.reduce((n, s) => n + s.length, 0);
    const out = slots.map((s) => JSON.stringify(typeof s === 'number' ? { logprobs: Array.from(r.logprobs[s]) } : { error: s }));
    writeFileSync(outPath, out.join('\n') + (out.length ? '\n' : ''));
    const secs = (performance.now() - t0) / 1000;
    const skipped = errors.filter((e) => !e.includes('warning')).length;
    process.stderr.write(`scored ${seqs.length} lines (${tokens} tokens) in ${secs.toFixed(2)} s${skipped ? `, skipped ${skipped} bad lines` : ''} -> ${outPath}\n`);
    model.dispose();
    return skipped && !seqs.length ? 1 : 0;
  },
};
