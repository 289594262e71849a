// FNV-1a: the published vectors, chaining, and the values stored hashes had before it was shared.
import { describe, expect, it } from 'vitest';
import { FNV_OFFSET, fnvMix, fnvText, hex32 } from '../../../src/util/fnv';
import { dataHash } from '../../../src/run/sft-run';
import { fingerprint } from '../../../src/gpu/kernels/linear-fingerprint';

describe('FNV-1a (32 bits)', () => {
  it('gives the published test vectors', () => {
    expect(hex32(fnvText(''))).toBe('811c9dc5');
    expect(hex32(fnvText('a'))).toBe('e40c292c');
    expect(hex32(fnvText('foobar'))).toBe('bf9cf968');
  });

  it('continues from a given hash as one text would', () => {
    expect(fnvText('bar', fnvText('foo'))).toBe(fnvText('foobar'));
    expect(fnvMix(FNV_OFFSET, 'a'.charCodeAt(0))).toBe(fnvText('a'));
  });

  it('keeps the values its users stored before it was shared', () => {
    // An SFT checkpoint's data hash and the tuning fingerprint are written to disk and compared
    // later: these are the values the code gave before src/util/fnv.ts.
    const ds = { examples: [{ ids: [1, 70000], mask: [0, 1] }] } as unknown as Parameters<typeof dataHash>[0];
    expect(dataHash(ds)).toBe('e5b77928');
    expect(fingerprint([{ name: 'a.wgsl', text: 'fn f() {}' }])).toBe('8e8a64a4');
    expect(fnvText('episode-1').toString(36)).toBe('1kt90b8');
  });
});
