// The `python` tool: runs the model's code in the Pyodide sandbox pool, in the episode's
// persistent namespace, and shows the model stdout, then the traceback or the sandbox's error.
// Registered by the agent loop; tested by tests/unit/tools/tools-registry.test.ts.
import type { Tool } from './registry';
import type { RunOptions, RunResult } from './python/types';

/** The part of PythonPool the tool needs (a real pool in Node or the browser). */
export interface PythonRunner {
  run(code: string, opts?: RunOptions): Promise<RunResult>;
  endEpisode(episode: string): Promise<void>;
}

export interface PythonToolOptions {
  timeoutMs?: number;
  maxOutputBytes?: number;
  description?: string;
}

export function pythonTool(runner: PythonRunner, opts: PythonToolOptions = {}): Tool {
  return {
    name: 'python',
    description: opts.description ?? 'Run Python code and return stdout',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'Python source to run', minLength: 1, maxLength: 20000 } },
      required: ['code'],
    },
    async call(args, ctx) {
      const r = await runner.run(String(args.code), {
        episode: ctx.episodeId, timeoutMs: opts.timeoutMs, maxOutputBytes: opts.maxOutputBytes, signal: ctx.signal,
      });
      const out = { text: formatRun(r), ok: r.errorType === null, truncated: r.truncated };
      return r.errorType === null ? out : { ...out, error: `${r.errorType}: ${r.errorMessage ?? ''}` };
    },
    endEpisode: (id) => runner.endEpisode(id),
  };
}

/** What the model reads: stdout, then stderr (tracebacks), then the sandbox's own errors. */
export function formatRun(r: RunResult): string {
  const parts: string[] = [];
  if (r.stdout) parts.push(r.stdout.replace(/\n$/, ''));
  if (r.stderr) parts.push(r.stderr.replace(/\n$/, ''));
  if (r.errorType === 'Timeout' && !r.stderr.includes('TimeoutError')) parts.push(`TimeoutError: ${r.errorMessage}`);
  else if (r.errorType === 'OutputLimitExceeded' || r.errorType === 'SandboxCrash' || r.errorType === 'SandboxUnavailable' || r.errorType === 'Aborted') {
    parts.push(`${r.errorType}: ${r.errorMessage}`);
  }
  if (r.truncated && r.errorType !== 'OutputLimitExceeded') parts.push('[output truncated]');
  if (r.namespaceLost) parts.unshift('[note: the sandbox restarted; variables from earlier calls are gone]');
  return parts.length ? parts.join('\n') : '(no output)';
}
