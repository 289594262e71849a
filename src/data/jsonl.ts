// The one way we read JSONL text: a UTF-8 byte-order mark before line 1 is dropped (editors on
// Windows write one), CRLF endings are accepted, blank lines are skipped, and every line keeps
// its 1-based number; parseJsonObjectLine says why a line is not one JSON object (`null`, an
// array, a number, broken JSON). Used by every JSONL reader; tested by tests/unit/data/data-jsonl.test.ts.

/** Drops a leading U+FEFF (the UTF-8 BOM as decoded text). Node's readFileSync keeps it. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  /** The line without its line ending. */
  text: string;
}

/** The non-blank lines of a JSONL text, numbered as an editor numbers them. */
export function jsonlLines(content: string): JsonlLine[] {
  const out: JsonlLine[] = [];
  stripBom(content).split('\n').forEach((raw, i) => {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim()) out.push({ line: i + 1, text });
  });
  return out;
}

export type ParsedLine = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

/** What a JSON value is, for messages ("null", "an array", "a number"). */
export function describeJsonValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

/** Parses one line that must hold one JSON object; never throws. */
export function parseJsonObjectLine(text: string): ParsedLine {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `not valid JSON (${(e as Error).message})` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return { ok: false, reason: `is ${describeJsonValue(v)}; each line must be one JSON object` };
  }
  return { ok: true, value: v as Record<string, unknown> };
}

/** For converters of upstream files, where any bad line is a bug: every line as an object, or a throw naming `file:line`. */
export function requireJsonlObjects(content: string, file: string): { line: number; value: Record<string, unknown> }[] {
  return jsonlLines(content).map(({ line, text }) => {
    const p = parseJsonObjectLine(text);
    if (!p.ok) throw new Error(`${file}:${line}: ${p.reason}`);
    return { line, value: p.value };
  });
}
