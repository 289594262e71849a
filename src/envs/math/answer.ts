// Final-answer extraction and numeric comparison for math tasks. From the model's last message,
// in this order: the last `\boxed{...}`, the last "the answer is X" / "answer: X", the last
// `#### X`, else the last number. Numbers compare after stripping commas, `$`, `%`, units and a
// trailing `.0` (fractions like 3/4 and \frac{3}{4} too). Tested by tests/unit/envs/env-math.test.ts.

export type AnswerForm = 'boxed' | 'answer_is' | 'hash' | 'last_number';
export const ANSWER_ORDER: readonly AnswerForm[] = ['boxed', 'answer_is', 'hash', 'last_number'];

/** Content of the last \boxed{...} (or \fbox{...}), braces balanced; null when absent or unclosed. */
export function lastBoxed(text: string): string | null {
  const starts = [...text.matchAll(/\\(?:boxed|fbox)\s*\{/g)];
  for (let k = starts.length - 1; k >= 0; k--) {
    const open = starts[k].index + starts[k][0].length;
    let depth = 1;
    for (let i = open; i < text.length; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth === 0) return text.slice(open, i).trim();
    }
  }
  return null;
}

function lastMatch(text: string, re: RegExp): string | null {
  const all = [...text.matchAll(re)];
  const m = all[all.length - 1];
  return m ? m[1].trim() : null;
}

const NUMBER_RE = /-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?|-?\.\d+/g;

/** The text of one answer form, or null when the message does not use it. */
export function extractForm(text: string, form: AnswerForm): string | null {
  switch (form) {
    case 'boxed':
      return lastBoxed(text);
    case 'answer_is':
      return lastMatch(text, /\banswer\s*(?:is|:|=)\s*:?\s*([^\n]+)/gi);
    case 'hash':
      return lastMatch(text, /####\s*([^\n]+)/g);
    case 'last_number': {
      const nums = text.match(NUMBER_RE);
      return nums ? nums[nums.length - 1] : null;
    }
  }
}

/** The first answer form found in ANSWER_ORDER (or only `only`), with what it holds. */
export function extractMathAnswer(text: string, only?: AnswerForm): { value: string; form: AnswerForm } | null {
  for (const form of only ? [only] : ANSWER_ORDER) {
    const value = extractForm(text, form);
    if (value !== null && value !== '') return { value, form };
  }
  return null;
}

/** The number an answer string denotes: "$1,234.50 dollars" -> 1234.5, "\frac{3}{4}" -> 0.75, "50%" -> 50. */
export function parseNumber(answer: string): number | null {
  const s = answer
    .replace(/\\text\s*\{([^}]*)\}/g, '$1')
    .replace(/\\[!,;: ]/g, '')
    .replace(/\\?\$/g, '')
    .replace(/(\d),(?=\d)/g, '$1')
    .trim();
  const frac = s.match(/^-?\s*\\d?frac\s*\{\s*(-?\d+(?:\.\d+)?)\s*\}\s*\{\s*(-?\d+(?:\.\d+)?)\s*\}/) ?? s.match(/^(-?\d+(?:\.\d+)?)\s*\/\s*(-?\d+(?:\.\d+)?)(?![\d.])/);
  if (frac) {
    const sign = /^-\s*\\d?frac/.test(s) ? -1 : 1;
    const den = Number(frac[2]);
    return den === 0 ? null : (sign * Number(frac[1])) / den;
  }
  const m = s.match(/-?\d+(?:\.\d+)?|-?\.\d+/);
  return m ? Number(m[0]) : null;
}

/** Lower case, no spaces, `$` or commas: the fallback comparison for non-numeric answers. */
export function normalizeAnswerText(s: string): string {
  return s.toLowerCase().replace(/\\text\s*\{([^}]*)\}/g, '$1').replace(/[\s$,]|\\\$/g, '').replace(/\.$/, '');
}

/** Equal as numbers (relative tolerance) when both parse, else as normalised text. */
export function answersMatch(predicted: string, reference: string, tolerance = 1e-12): boolean {
  const a = parseNumber(predicted);
  const b = parseNumber(reference);
  if (a !== null && b !== null) return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));
  return normalizeAnswerText(predicted) === normalizeAnswerText(reference);
}
