// The tool registry: Qwen2.5 `# Tools` rendering byte-for-byte against the template's output
// (shared/models/qwen2.5-tokenizer/rendered_example.txt), argument validation, dispatch to the
// real python sandbox (episode namespaces) and the real corpus search, caps, and call parsing.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry, capText } from '../../../src/tools/registry';
import { pythonTool } from '../../../src/tools/python-tool';
import { searchTool } from '../../../src/tools/search-tool';
import { httpTool } from '../../../src/tools/http-tool';
import { parseToolCalls, pyJson } from '../../../src/tools/qwen-tools';
import { CorpusSearch, parseCorpusJsonl } from '../../../src/tools/search/corpus';
import { createNodePythonPool } from '../../../src/tools/python/node-pool';
import type { PythonPool } from '../../../src/tools/python/pool';

// The system turn of rendered_example.txt, as Qwen2.5's chat_template.jinja renders it.
const EXPECTED_SYSTEM = `You are a helpful assistant.

# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{"type": "function", "function": {"name": "search", "description": "Search the offline corpus", "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}
{"type": "function", "function": {"name": "python", "description": "Run Python code and return stdout", "parameters": {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call>`;

let pool: PythonPool;
let registry: ToolRegistry;

beforeAll(async () => {
  pool = createNodePythonPool({ workers: 1, timeoutMs: 5000 });
  await pool.ready();
  const corpus = new CorpusSearch(parseCorpusJsonl(readFileSync('datasets/squad_corpus.jsonl', 'utf8')), { maxSnippetChars: 200 });
  registry = new ToolRegistry({ maxResponseChars: 300 }).register(searchTool(corpus)).register(pythonTool(pool));
});

afterAll(async () => {
  await pool.close();
});

describe('Qwen2.5 rendering', () => {
  it('matches the chat template output for the tools of rendered_example.txt', () => {
    const bare = new ToolRegistry();
    bare.register({ name: 'search', description: 'Search the offline corpus', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }, call: async () => ({ text: '', ok: true }) });
    bare.register({ name: 'python', description: 'Run Python code and return stdout', parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] }, call: async () => ({ text: '', ok: true }) });
    expect(bare.renderSystemPrompt('You are a helpful assistant.')).toBe(EXPECTED_SYSTEM);
    const examplePath = '../shared/models/qwen2.5-tokenizer/rendered_example.txt'; // when the shared folder is present
    if (existsSync(examplePath)) expect(readFileSync(examplePath, 'utf8').startsWith(`<|im_start|>system\n${EXPECTED_SYSTEM}<|im_end|>`)).toBe(true);
    expect(bare.tools()[0]).toEqual({ type: 'function', function: { name: 'search', description: 'Search the offline corpus', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } });
  });

  it('writes JSON like Python json.dumps and parses tool calls', () => {
    expect(pyJson({ a: [1, 2.5, true, null], 'é': 'ü "q"' })).toBe('{"a": [1, 2.5, true, null], "é": "ü \\"q\\""}');
    const text = 'ok\n<tool_call>\n{"name": "search", "arguments": {"query": "AFC"}}\n</tool_call>\n<tool_call>\n{"name": "python", "arguments": {"code": "print(1)\\n"}}\n</tool_call><tool_call>{bad}</tool_call>';
    const { calls, errors } = parseToolCalls(text);
    expect(calls).toEqual([{ name: 'search', arguments: { query: 'AFC' } }, { name: 'python', arguments: { code: 'print(1)\n' } }]);
    expect(errors).toHaveLength(1);
  });
});

describe('registry calls', () => {
  it('validates arguments and names the problem', async () => {
    expect(registry.validate('python', {})).toEqual(['arguments.code is required']);
    expect(registry.validate('python', { code: 3 })).toEqual(['arguments.code must be a string, got number']);
    expect(registry.validate('nope', {})[0]).toContain('unknown tool "nope"; available: search, python');
    const r = await registry.call('python', { code: 42 }, { episodeId: 'e' });
    expect(r).toMatchObject({ ok: false, truncated: false });
    expect(r.text).toContain('must be a string');
    expect(() => registry.register(searchTool(new CorpusSearch([])))).toThrow('already registered');
  });

  it('runs python in the episode namespace and reports errors as text', async () => {
    const a = await registry.call('python', { code: 'x = 20\nprint(x)' }, { episodeId: 'ep1' });
    expect(a).toMatchObject({ text: '20', ok: true, truncated: false });
    expect(a.latencyMs).toBeGreaterThan(0);
    const b = await registry.call('python', { code: 'print(x + 22)' }, { episodeId: 'ep1' });
    expect(b.text).toBe('42');
    const other = await registry.call('python', { code: 'print(x)' }, { episodeId: 'ep2' });
    expect(other).toMatchObject({ ok: false, error: "NameError: name 'x' is not defined" });
    expect(other.text).toContain("NameError: name 'x' is not defined");
    await registry.endEpisode('ep1');
    expect((await registry.call('python', { code: 'print(x)' }, { episodeId: 'ep1' })).ok).toBe(false);
    expect((await registry.call('python', { code: 'pass' }, { episodeId: 'ep3' })).text).toBe('(no output)');
    const slow = await registry.call('python', { code: 'while True: pass' }, { episodeId: 'ep3', signal: AbortSignal.timeout(300) });
    expect(slow).toMatchObject({ ok: false });
    expect(slow.text).toContain('Aborted');
  });

  it('caps long output in the middle and marks it truncated', async () => {
    const r = await registry.call('python', { code: 'print("a" * 1000 + "END")' }, { episodeId: 'e' });
    expect(r.truncated).toBe(true);
    expect(r.text.length).toBeLessThanOrEqual(300);
    expect(r.text.endsWith('END')).toBe(true);
    expect(capText('short', 10)).toEqual({ text: 'short', cut: false });
  });

  it('searches the corpus', async () => {
    const r = await registry.call('search', { query: 'Denver Broncos Carolina Panthers Super Bowl 50 champion' }, { episodeId: 'e' });
    expect(r.ok).toBe(true);
    expect(r.text).toContain('[Super Bowl 50]');
  });

  it('turns a throwing tool into an error result', async () => {
    const reg = new ToolRegistry().register(httpTool({ name: 'weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }, async () => {
      throw new Error('proxy answered 403');
    }));
    const r = await reg.call('weather', { city: 'Paris' }, { episodeId: 'e' });
    expect(r).toMatchObject({ ok: false, error: 'weather failed: proxy answered 403', text: 'Error: weather failed: proxy answered 403' });
  });
});
