// `npm run cli -- python (--code TEXT | --file F.py) [--timeout-ms N] [--max-output-bytes N]
// [--stdin TEXT] [--allow-weak-sandbox]`: runs code in a one-worker Node sandbox pool, prints the
// isolation level on stderr and the run result as one JSON object on stdout.
// Exercised by tests/unit/cli/tools-cli.test.ts.
import { readFileSync } from 'node:fs';
import { getNumber, getString, type CliCommand } from '../../util/args';
import { announceSandbox, createNodePythonPool } from '../../tools/python/node-pool';

export const command: CliCommand = {
  name: 'python',
  summary: 'run Python in the Pyodide sandbox and print the result as JSON',
  usage: [
    'Usage: npm run cli -- python (--code TEXT | --file F.py) [--timeout-ms N] [--max-output-bytes N] [--stdin TEXT] [--allow-weak-sandbox]',
    '',
    'Prints {stdout, stderr, errorType, errorMessage, durationMs, truncated, timedOut}.',
    'The code runs in a separate process with no environment, no network and no host files (see',
    'README "Python sandbox isolation"); the level obtained is printed on stderr. Below the minimum',
    'level the command refuses to run unless --allow-weak-sandbox is given.',
  ].join('\n'),
  async run(args) {
    const code = getString(args, 'code');
    const file = getString(args, 'file');
    if ((code === undefined) === (file === undefined)) throw new Error('give exactly one of --code TEXT or --file F.py');
    const source = code ?? readFileSync(file!, 'utf8');
    const timeoutMs = getNumber(args, 'timeout-ms', 10_000);
    const maxOutputBytes = getNumber(args, 'max-output-bytes', 64 * 1024);
    const allowWeakSandbox = args.flags['allow-weak-sandbox'] === true;
    announceSandbox((line) => console.error(line), { allowWeakSandbox });
    const pool = createNodePythonPool({ workers: 1, timeoutMs, maxOutputBytes, allowWeakSandbox });
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
