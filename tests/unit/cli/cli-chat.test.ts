// The `chat` command end to end with piped stdin (in the test's process: tests/fixtures/cli-in-process.ts), and `generate` with no --model, both run from a
// folder outside the repo (the defaults resolve from the repo root): an eval-split question gets
// a streamed assistant turn (and, when the model calls a tool, the tool's response); a prefilled
// python call runs in the sandboxed pool and the model's next turn follows; /reset and /exit.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInProcess } from '../../fixtures/cli-in-process';

const ROOT = resolve(__dirname, '../../..');

/** The CLI in the test's process (tests/fixtures/cli-in-process.ts), `input` piped to stdin, from a folder outside the repo. */
const cli = (input: string, ...args: string[]) => cliInProcess(args, { stdin: input, cwd: tmpdir() });

/** The nth task (0-based) of a family in the shipped eval split. */
function evalQuestion(family: 'calculator' | 'lookup', nth = 0): string {
  const rows = readFileSync(join(ROOT, 'datasets/agent_eval.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { family: string; question: string });
  return rows.filter((r) => r.family === family)[nth].question;
}

describe('cli chat (the default agent)', async () => {
  it('answers an eval question with a streamed turn; a tool call it makes runs; /reset, /exit', async () => {
    // The shipped agent-tiny (greedy) calls python on this one, unforced, then answers.
    const q = evalQuestion('calculator', 1);
    const r = await cli(`${q}\n/reset\n/exit\nnever read\n`, 'chat', '--tune', 'false', '--max-new-tokens', '64');
    console.log(`chat (greedy, no prefill):\n${r.out}`);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('agent-tiny');
    expect(r.err).toContain('tools python, search');
    expect(r.out).toContain(`you> ${q}\nagent> `);
    const turn = r.out.split('agent> ')[1];
    expect(turn.trim().length).toBeGreaterThan(0);
    // A tool call the model closed (and ended its turn after) ran and its response was shown.
    if (/<\/tool_call>\n/.test(turn)) {
      expect(r.out).toMatch(/^tool (search|python) \{.*\} (ran in \d+ ms|failed)/m);
      expect(r.out.split('\nagent> ').length).toBeGreaterThan(2);   // and the model took the next turn
    }
    expect(r.out).toContain('you> /reset\n(new conversation)\n');
    expect(r.out).not.toContain('never read');
  });

  it('a prefilled python call runs in the sandbox and the model takes the next turn', async () => {
    const q = evalQuestion('calculator');
    const call = '<tool_call>\n{"name": "python", "arguments": {"code": "print(6 * 7)"}}\n</tool_call><|im_end|>';
    const r = await cli(`${q}\n`, 'chat', '--tune', 'false', '--max-new-tokens', '32', '--prefill', call);
    console.log(`chat (prefilled call):\n${r.out}`);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`you> ${q}\nagent> <tool_call>\n{"name": "python", "arguments": {"code": "print(6 * 7)"}}\n</tool_call>\n`);
    expect(r.out).toMatch(/^tool python \{"code":"print\(6 \* 7\)"\} ran in \d+ ms:\n {2}42\n/m);
    // the answer turn after the tool response
    expect(r.out.split('agent> ').length).toBe(3);
  });

  it('generate with no --model runs the default agent on --prompt as a chat turn', async () => {
    const gen = (...more: string[]) => cli('', 'generate', '--prompt', evalQuestion('calculator'), '--temperature', '0', '--tune', 'false', ...more);
    const promptTokens = (err: string) => Number(/prompt (\d+) tokens/.exec(err)?.[1]);
    const r = await gen('--max-new-tokens', '8');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('model: qwen2 L=4 C=64 V=1024, quant none');
    expect(r.out.trim().length).toBeGreaterThan(0);
    // rendered with the template (<|im_start|>system ... user ... assistant) vs the bare text
    const bare = await gen('--max-new-tokens', '1', '--chat', 'false');
    expect(bare.code, bare.err).toBe(0);
    console.log(`generate (default agent): ${JSON.stringify(r.out.trim())}; prompt ${promptTokens(r.err)} tokens as a chat, ${promptTokens(bare.err)} bare`);
    expect(promptTokens(r.err)).toBeGreaterThan(promptTokens(bare.err) + 4);
  });
});
