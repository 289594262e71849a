// The proxy's body helpers: UTF-8 cuts never split a character, and redaction before a cut drops
// a secret's start left at the end of a partly read body, even when earlier redactions shifted
// it into the kept part.
import { describe, expect, it } from 'vitest';
import { cutUtf8, readCappedText, redactSecrets } from '../../../src/server/search/body';

const KEY = 'sk-live-0123456789abcdef';

describe('proxy body helpers', () => {
  it('cuts on a character boundary', () => {
    expect(cutUtf8('aé€', 4)).toEqual({ text: 'aé', cut: true });
    expect(cutUtf8('aé€', 6)).toEqual({ text: 'aé€', cut: false });
  });

  it('drops a partial secret at the end of a head-only read', () => {
    expect(redactSecrets(`x ${KEY} y ${KEY.slice(0, 7)}`, [KEY], true)).toBe('x *** y ');
    expect(redactSecrets(`x ${KEY.slice(0, 7)}`, [KEY], false)).toBe(`x ${KEY.slice(0, 7)}`);
  });

  it('never leaks part of a key, whatever the cap and however many keys came before', async () => {
    const body = `${KEY}${KEY}${KEY}-${KEY}..`;
    for (let cap = 1; cap < body.length + 4; cap++) {
      const { text } = await readCappedText(new Response(body), cap, [KEY]);
      for (let n = 4; n <= KEY.length; n++) expect(text, `cap ${cap}`).not.toContain(KEY.slice(0, n));
      expect(new TextEncoder().encode(text).byteLength).toBeLessThanOrEqual(cap);
    }
  });
});
