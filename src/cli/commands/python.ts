// `npm run cli -- python (--code TEXT | --file F.py) [--timeout-ms N] [--max-output-bytes N]
// [--stdin TEXT]`: runs code in the same Pyodide sandbox as the studio (a one-worker Node pool)
// and prints the run result as one JSON object. Exercised by tests/unit/tools-cli.test.ts.
import { readFileSync } from 'node:fs';
import { getNumber, getString, type CliCommand } from '../args';
import { createNodePythonPool } from '../../tools/python/node-pool';

export const command: CliCommand = {
  name: 'python',
  summary: 'run Python in the Pyodide sandbox and print the result as JSON',
  usage: [
    'Usage: npm run cli -- python (--code TEXT | --file F.py) [--timeout-ms N] [--max-output-bytes N] [--stdin TEXT]',
    '',
    'Prints {stdout, stderr, errorType, errorMessage, durationMs, truncated, timedOut}.',
    'Node has no CSP: the sandbox bounds time, memory and output, but it is not a security boundary here (see README).',
  ].join('\n'),
  async run(args) {
    const code = getString(args, 'code');
    const file = getString(args, 'file');
    if ((code === undefined) === (file === undefined)) throw new Error('give exactly one of --code TEXT or --file F.py');
    const source = code ?? readFileSync(file!, 'utf8');
    const timeoutMs = getNumber(args, 'timeout-ms', 10_000);
    const maxOutputBytes = getNumber(args, 'max-output-bytes', 64 * 1024);
    const pool = createNodePythonPool({ workers: 1, timeoutMs, maxOutputBytes });
    try {
      await pool.ready();
      const stdin = getString(args, 'stdin');
      const r = await pool.run(source, { timeoutMs, maxOutputBytes, ...(stdin !== undefined ? { stdin } : {}) });
      const { namespaceLost: _unused, ...shown } = r;
      console.log(JSON.stringify(shown));
      return r.errorType === null ? 0 : 1;
    } finally {
      await pool.close();
    }
  },
};
