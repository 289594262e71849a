// Parsing an assistant turn in the hermes/Qwen format: several calls in order, malformed JSON, a
// missing </tool_call>, bodies that are not a call object; then those blocks run through a real
// ToolRegistry (unknown tool, arguments failing the schema, a throwing tool, a timeout) and every
// failure comes back as an error text for the model.
import { describe, expect, it } from 'vitest';
import { parseAssistantTurn } from '../../../src/agents/tool-parse';
import { runTurnTools } from '../../../src/agents/tool-exec';
import { ToolRegistry } from '../../../src/tools/registry';

const call = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe('parseAssistantTurn', () => {
  it('a turn without <tool_call> is the final answer', () => {
    const p = parseAssistantTurn('The answer is 42.');
    expect(p.blocks).toEqual([]);
    expect(p.content).toBe('The answer is 42.');
  });

  it('reads several calls in order and keeps the text before them as content', () => {
    const text = `Let me look.\n${call('search', { query: 'a' })}\n${call('python', { code: 'print(1)' })}`;
    const p = parseAssistantTurn(text);
    expect(p.blocks.map((b) => (b.ok ? b.call.name : b.error))).toEqual(['search', 'python']);
    expect(p.blocks[1].ok && p.blocks[1].call.arguments).toEqual({ code: 'print(1)' });
    expect(p.content).toBe('Let me look.');
  });

  it('accepts arguments given as a JSON string (some models do that)', () => {
    const p = parseAssistantTurn('<tool_call>{"name": "f", "arguments": "{\\"x\\": 1}"}</tool_call>');
    expect(p.blocks[0]).toMatchObject({ ok: true, call: { name: 'f', arguments: { x: 1 } } });
  });

  it('turns malformed JSON, non-objects and a missing name into errors, in order', () => {
    const text = [
      '<tool_call>\n{"name": "search", "arguments": {"query": "x"}\n</tool_call>', // one brace short
      '<tool_call>\nsearch(query="x")\n</tool_call>', // not JSON at all
      '<tool_call>\n{"arguments": {}}\n</tool_call>', // no name
      call('search', { query: 'ok' }),
    ].join('\n');
    const p = parseAssistantTurn(text);
    const summary = p.blocks.map((b) => (b.ok ? `ok ${b.call.name}` : b.error.slice(0, 40)));
    console.log('malformed blocks:', summary);
    expect(p.blocks.length).toBe(4);
    expect(p.blocks[0].ok).toBe(false);
    expect(!p.blocks[0].ok && p.blocks[0].error).toContain('not valid JSON');
    expect(!p.blocks[0].ok && p.blocks[0].name).toBe('search');
    expect(!p.blocks[1].ok && p.blocks[1].error).toContain('not valid JSON');
    expect(!p.blocks[2].ok && p.blocks[2].error).toContain('string "name"');
    expect(p.blocks[3].ok).toBe(true);
    // Broken blocks stay in the content (the model wrote them); the good one leaves it.
    expect(p.content).toContain('search(query="x")');
    expect(p.content).not.toContain('"ok"');
  });

  it('a missing closing tag is an error, whether at the end or before the next call', () => {
    const arr = parseAssistantTurn('<tool_call>[1, 2]</tool_call>');
    expect(!arr.blocks[0].ok && arr.blocks[0].error).toContain('is not a JSON object');
    const end = parseAssistantTurn('<tool_call>\n{"name": "python", "arguments": {"code": "print(2)"}}');
    expect(end.blocks.length).toBe(1);
    expect(!end.blocks[0].ok && end.blocks[0].error).toContain('missing </tool_call>');
    expect(!end.blocks[0].ok && end.blocks[0].name).toBe('python');
    const mid = parseAssistantTurn(`<tool_call>\n{"name": "a", "arguments": {}}\n${call('b', {})}`);
    expect(mid.blocks.map((b) => b.ok)).toEqual([false, true]);
    expect(mid.blocks[1].ok && mid.blocks[1].call.name).toBe('b');
  });
});

describe('runTurnTools through the registry', () => {
  const registry = new ToolRegistry()
    .register({
      name: 'add', description: 'Add two numbers',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      call: async (args) => ({ text: String(Number(args.a) + Number(args.b)), ok: true }),
    })
    .register({ name: 'boom', description: 'Always throws', parameters: { type: 'object' }, call: async () => { throw new Error('kaput'); } })
    .register({
      name: 'hang', description: 'Never answers unless aborted', parameters: { type: 'object' },
      call: (_args, ctx) => new Promise((resolve) => ctx.signal?.addEventListener('abort', () => resolve({ text: 'aborted', ok: false, error: 'aborted' }))),
    });

  it('unknown tools, schema failures, throwing tools, timeouts and parse errors all become error texts', async () => {
    const text = [
      call('add', { a: 2, b: 3 }),
      call('nope', {}),
      call('add', { a: 'two', b: 3 }),
      call('boom', {}),
      call('hang', {}),
      '<tool_call>{"name": "add", "arguments": {</tool_call>',
    ].join('\n');
    const p = parseAssistantTurn(text);
    const t0 = performance.now();
    const out = await runTurnTools(registry, p.blocks, 'ep-test', 150);
    const ms = performance.now() - t0;
    for (const o of out) console.log(`${o.name || '(unparsed)'} ok=${o.ok} ${o.latencyMs.toFixed(0)} ms: ${o.text.slice(0, 70)}`);
    expect(out.map((o) => o.ok)).toEqual([true, false, false, false, false, false]);
    expect(out[0].text).toBe('5');
    expect(out[1].text).toContain('unknown tool "nope"');
    expect(out[2].text).toContain('arguments.a must be a number');
    expect(out[3].text).toContain('boom failed: kaput');
    expect(out[4].text).toContain('timed out after 150 ms');
    expect(out[5].text).toMatch(/^Error: tool call is not valid JSON/);
    expect(out[5].name).toBe('add');
    expect(out.every((o) => o.text.length > 0)).toBe(true);
    expect(ms).toBeLessThan(2000);
  });
});
