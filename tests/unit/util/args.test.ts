// The CLI argument parser: values, flags, `=` syntax, repeats, and errors naming the option.
import { describe, expect, it } from 'vitest';
import { getBool, getNumber, parseArgs, requireString } from '../../../src/util/args';

describe('parseArgs', () => {
  it('reads values, flags, = syntax and repeats', () => {
    const a = parseArgs(['pos', '--model', 'm.bin', '--top-p=0.9', '--set', 'a=1', '--set', 'b=2', '--verbose']);
    expect(a.positionals).toEqual(['pos']);
    expect(a.flags.model).toBe('m.bin');
    expect(getNumber(a, 'top-p')).toBe(0.9);
    expect(a.all.set).toEqual(['a=1', 'b=2']);
    expect(getBool(a, 'verbose', false)).toBe(true);
  });
  it('names the option at fault', () => {
    const a = parseArgs(['--steps', 'many', '--out']);
    expect(() => getNumber(a, 'steps')).toThrow('--steps must be a number');
    expect(() => requireString(a, 'model')).toThrow('--model is required');
    expect(() => requireString(a, 'out')).toThrow('--out needs a value');
  });
});
