// Reading answers from providers and HTTP tools without trusting their size: the body is read
// chunk by chunk and the stream cancelled once a byte cap is passed (a huge answer is never held
// whole), and text is cut on a UTF-8 character boundary. Secrets are redacted *before* any cut,
// so a key straddling the cut cannot leak in part. Used by resilience.ts and service.ts; tested by tests/unit/server/proxy-body.test.ts.

export interface CappedBody {
  bytes: Uint8Array;
  /** True when the body was longer than the cap (the rest was not read). */
  over: boolean;
}

/** Reads at most `maxBytes` (and stops the download past that). */
export async function readCapped(res: Response, maxBytes: number): Promise<CappedBody> {
  if (!res.body) return { bytes: new Uint8Array(0), over: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      size += room;
      over = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes, over };
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes` (no split character). */
export function cutUtf8(text: string, maxBytes: number): { text: string; cut: boolean } {
  const bytes = new TextEncoder().encode(text);
  if (bytes.byteLength <= maxBytes) return { text, cut: false };
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--; // back off a continuation byte
  return { text: new TextDecoder().decode(bytes.subarray(0, end)), cut: true };
}

/**
 * `text` with every secret replaced by `***`. When the text is the head of a longer body
 * (`headOnly`), a tail that is the start of a secret is dropped too: the rest of that secret is
 * in the part that was not read.
 */
export function redactSecrets(text: string, secrets: readonly string[], headOnly = false): string {
  let out = text;
  if (headOnly) {
    for (const s of secrets) {
      for (let n = Math.min(s.length - 1, out.length); n > 0; n--) {
        if (out.endsWith(s.slice(0, n))) {
          out = out.slice(0, out.length - n);
          break;
        }
      }
    }
  }
  for (const s of secrets) if (s) out = out.split(s).join('***');
  return out;
}

/**
 * Body text of at most `maxBytes`, redacted before it is cut: the longest secret's length in
 * extra bytes is read, so a secret that starts before the cut is seen whole and replaced.
 */
export async function readCappedText(res: Response, maxBytes: number, secrets: readonly string[]): Promise<{ text: string; cut: boolean }> {
  const overlap = Math.max(0, ...secrets.map((s) => new TextEncoder().encode(s).byteLength));
  const body = await readCapped(res, maxBytes + overlap);
  const clean = redactSecrets(new TextDecoder().decode(body.bytes), secrets, body.over);
  const r = cutUtf8(clean, maxBytes);
  return { text: r.text, cut: r.cut || body.over };
}
