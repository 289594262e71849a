// Tool-argument validation through ajv: the full schema language (pattern, oneOf, nested arrays)
// works, messages name the field at fault, and an invalid schema is refused at registration
// with the tool's name.
import { describe, expect, it } from 'vitest';
import { validateJson } from '../../../src/tools/json-schema';
import { ToolRegistry } from '../../../src/tools/registry';

describe('tool argument schemas (ajv)', () => {
  it('names the field at fault, nested and in arrays', () => {
    const schema = {
      type: 'object' as const,
      properties: {
        date: { type: 'string' as const, pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        stops: { type: 'array' as const, items: { type: 'object' as const, properties: { lat: { type: 'number' as const } }, required: ['lat'] } },
        unit: { enum: ['c', 'f'] },
        when: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
      },
    };
    expect(validateJson({ date: '2026-11-24', stops: [{ lat: 1 }], unit: 'c', when: 3 }, schema)).toEqual([]);
    const problems = validateJson({ date: 'tomorrow', stops: [{ lat: 1 }, { lat: 'x' }, {}], unit: 'k' }, schema);
    console.log(problems.join('\n'));
    expect(problems).toEqual([
      'arguments.date must match pattern "^\\d{4}-\\d{2}-\\d{2}$"',
      'arguments.stops[1].lat must be a number, got string',
      'arguments.stops[2].lat is required',
      'arguments.unit must be one of "c", "f"',
    ]);
  });

  it('refuses an invalid schema when the tool is registered', () => {
    const reg = new ToolRegistry();
    const tool = { name: 'bad', description: 'd', parameters: { type: 'object' as const, properties: { a: { type: 'strng' } } }, call: async () => ({ text: '', ok: true }) };
    expect(() => reg.register(tool as never)).toThrow('tool "bad": the parameters are not a valid JSON Schema');
  });
});
