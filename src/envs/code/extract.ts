// Which code a code_exec answer submits: the last ```python (or ```py) fenced block of the final
// assistant message, else the last bare ``` block, else the whole message without tool calls.
// Tested by tests/unit/envs/env-code.test.ts.
import { stripToolCalls } from '../transcript';

export interface ExtractedCode {
  code: string;
  /** python: a ```python/```py block; fence: a bare ``` block; raw: the whole message. */
  source: 'python' | 'fence' | 'raw';
}

export function extractCode(message: string): ExtractedCode {
  const text = stripToolCalls(message);
  const blocks = [...text.matchAll(/```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)```/g)];
  const python = blocks.filter((b) => /^(python3?|py)$/i.test(b[1]));
  if (python.length) return { code: python[python.length - 1][2].replace(/\s+$/, '') + '\n', source: 'python' };
  const bare = blocks.filter((b) => b[1] === '');
  if (bare.length) return { code: bare[bare.length - 1][2].replace(/\s+$/, '') + '\n', source: 'fence' };
  return { code: text, source: 'raw' };
}
