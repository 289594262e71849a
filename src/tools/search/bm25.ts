// Okapi BM25 over an in-memory inverted index (k1 = 1.2, b = 0.75), with a small tokenizer:
// lower case, accents stripped, English stop words dropped, a light plural/suffix stemmer.
// Used by corpus.ts in the browser and Node; tested by tests/unit/tools/tools-search.test.ts.

const STOP = new Set(
  ('a an and are as at be by for from has have he her his i in is it its of on or she that the their them they this to was ' +
    'were what when where which who whom why how with did do does done into than then there these those you your we our ' +
    'not no but if so can could would should will shall may might been being had also any all some such').split(' '),
);

export function stem(w: string): string {
  if (w.length > 5 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (w.length > 4 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('es') && /(s|x|z|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

export function tokenize(text: string): string[] {
  const words = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((w) => !STOP.has(w)).map(stem);
}

export interface Bm25Options {
  k1: number;
  b: number;
}

export class Bm25Index {
  private readonly postings = new Map<string, { doc: number[]; tf: number[] }>();
  private readonly lengths: Float64Array;
  private readonly avgLength: number;
  readonly size: number;
  private readonly opts: Bm25Options;

  constructor(docs: string[], opts: Partial<Bm25Options> = {}) {
    this.opts = { k1: 1.2, b: 0.75, ...opts };
    this.size = docs.length;
    this.lengths = new Float64Array(docs.length);
    let total = 0;
    docs.forEach((text, d) => {
      const counts = new Map<string, number>();
      const toks = tokenize(text);
      for (const t of toks) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [t, n] of counts) {
        let p = this.postings.get(t);
        if (!p) this.postings.set(t, (p = { doc: [], tf: [] }));
        p.doc.push(d);
        p.tf.push(n);
      }
      this.lengths[d] = toks.length;
      total += toks.length;
    });
    this.avgLength = docs.length ? total / docs.length : 1;
  }

  /** The k best documents for `query`, best first (ties by document order). */
  search(query: string, k: number): { doc: number; score: number }[] {
    const scores = new Map<number, number>();
    const { k1, b } = this.opts;
    for (const term of new Set(tokenize(query))) {
      const p = this.postings.get(term);
      if (!p) continue;
      const idf = Math.log(1 + (this.size - p.doc.length + 0.5) / (p.doc.length + 0.5));
      for (let i = 0; i < p.doc.length; i++) {
        const d = p.doc[i], tf = p.tf[i];
        const norm = tf + k1 * (1 - b + (b * this.lengths[d]) / this.avgLength);
        scores.set(d, (scores.get(d) ?? 0) + (idf * tf * (k1 + 1)) / norm);
      }
    }
    return [...scores.entries()]
      .map(([doc, score]) => ({ doc, score }))
      .sort((x, y) => y.score - x.score || x.doc - y.doc)
      .slice(0, k);
  }
}
