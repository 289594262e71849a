// Decoding of the base64 strings Playwright tests hand to harness functions (files cross the
// page boundary as base64). Shared by every src/harness/*.harness.ts.

export function bytesOf(b64: string): Uint8Array {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
