// The CLI commands of the tools, run as a user would (`npm run cli -- python|search ...` through
// tsx in a child process): one JSON object for a python run (ok and timed out), and a corpus search.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliCommand } from '../../fixtures/cli-command';

function cli(args: string[]): { code: number; stdout: string } {
  try {
    return { code: 0, stdout: execFileSync(...cliCommand(...args), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (e) {
    const err = e as { status: number; stdout: string };
    return { code: err.status, stdout: err.stdout };
  }
}

describe('cli', () => {
  it('python prints the run result as one JSON object', () => {
    const ok = cli(['python', '--code', 'print(6 * 7)']);
    expect(ok.code).toBe(0);
    const r = JSON.parse(ok.stdout.trim()) as Record<string, unknown>;
    expect(r).toMatchObject({ stdout: '42\n', stderr: '', errorType: null, errorMessage: null, truncated: false, timedOut: false });
    const slow = cli(['python', '--code', 'while True: pass', '--timeout-ms', '400']);
    expect(slow.code).toBe(1);
    expect(JSON.parse(slow.stdout.trim())).toMatchObject({ errorType: 'Timeout', timedOut: true });
  });

  it('search queries an offline corpus', () => {
    const r = cli(['search', '--query', 'Denver Broncos defeated Carolina Panthers', '--corpus', 'datasets/squad_corpus.jsonl', '--k', '2', '--json']);
    expect(r.code).toBe(0);
    const { results } = JSON.parse(r.stdout.trim()) as { results: { title: string }[] };
    expect(results).toHaveLength(2);
    expect(results[0].title).toBe('Super Bowl 50');
  });
});
