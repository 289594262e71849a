// A small byte-level BPE trainer (GPT-2 style): split the text with a pre-tokenizer regex, map
// every byte to its printable stand-in, count the words, then repeatedly merge the most frequent
// adjacent pair (ties broken by the pair's text, so the result is deterministic). The output is
// the vocab (256 bytes, then one token per merge) and the merge list that tokenizer.json holds.
// Used by scripts/make-agent-tokenizer.ts; tested by tests/unit/tooling/agent-tokenizer.test.ts.

/** GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to code points 256+. */
export function byteToUnicode(): string[] {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const out = new Array<string>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) out[b] = keep.includes(b) ? String.fromCodePoint(b) : String.fromCodePoint(256 + extra++);
  return out;
}

export interface BpeResult {
  vocab: Record<string, number>;
  merges: [string, string][];
}

/**
 * Train byte-level BPE on `texts` (special tokens already removed) until the vocab has
 * `vocabSize` entries or no pair occurs twice. `splitRegex` is the pre-tokenizer pattern (JS
 * syntax with the `u` flag; keep it the same as the tokenizer.json Split pattern).
 */
export function trainByteLevelBpe(texts: Iterable<string>, splitRegex: string, vocabSize: number): BpeResult {
  const b2u = byteToUnicode();
  const enc = new TextEncoder();
  const re = new RegExp(splitRegex, 'gu');
  const counts = new Map<string, number>();
  for (const text of texts) {
    for (const m of text.normalize('NFC').matchAll(re)) {
      const w = Array.from(enc.encode(m[0]), (b) => b2u[b]).join('\u0000');
      counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  }
  const words = [...counts.entries()].map(([w, n]) => ({ syms: w.split('\u0000'), n }));
  const vocab: Record<string, number> = {};
  b2u.forEach((u, i) => (vocab[u] = i));
  const merges: [string, string][] = [];
  while (Object.keys(vocab).length < vocabSize) {
    const pairs = new Map<string, number>();
    for (const { syms, n } of words) {
      for (let i = 0; i + 1 < syms.length; i++) {
        const k = `${syms[i]}\u0000${syms[i + 1]}`;
        pairs.set(k, (pairs.get(k) ?? 0) + n);
      }
    }
    let best = '', bestN = 1;
    for (const [k, n] of pairs) if (n > bestN || (n === bestN && n > 1 && k < best)) [best, bestN] = [k, n];
    if (!best) break;
    const [a, b] = best.split('\u0000');
    merges.push([a, b]);
    if (!(a + b in vocab)) vocab[a + b] = Object.keys(vocab).length;
    for (const w of words) {
      const s = w.syms;
      if (s.length < 2) continue;
      const next: string[] = [];
      for (let i = 0; i < s.length; i++) {
        if (i + 1 < s.length && s[i] === a && s[i + 1] === b) {
          next.push(a + b);
          i++;
        } else next.push(s[i]);
      }
      w.syms = next;
    }
  }
  return { vocab, merges };
}
