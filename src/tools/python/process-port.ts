// A SandboxPort backed by a separate OS process (Node): the bundled sandbox entry started with
// sandboxCommand() (empty environment, permission model, heap cap, rlimits, no network), spoken
// to over the IPC channel. Each process gets its own scratch folder, deleted when it ends.
// Used by node-pool.ts; tests/unit/tools/tools-python*.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxPort, SandboxReply } from './protocol';
import { sandboxCommand, type Isolation, type SandboxLimits } from './isolation';
import { sandboxRoot } from './worker-bundle';

/** How much of the process's own stdout/stderr (Pyodide warnings, fatal errors) is kept for crash messages. */
const TAIL_BYTES = 2000;

export function processSandboxPort(iso: Isolation, pyodideDir: string, limits: SandboxLimits): SandboxPort {
  const { root, file } = sandboxRoot();
  const scratch = mkdtempSync(join(root, 'scratch-'));
  const cmd = sandboxCommand(iso, file, [pyodideDir], scratch, limits);
  const child = spawn(cmd.command, cmd.args, { env: cmd.env, cwd: scratch, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let tail = '';
  const keep = (b: Buffer) => {
    tail = (tail + b.toString('utf8')).slice(-TAIL_BYTES);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const cleanup = () => rmSync(scratch, { recursive: true, force: true });
  child.once('exit', cleanup);
  return {
    sharesMemory: false,
    post(msg) {
      if (child.connected) child.send(msg);
    },
    listen(onReply, onExit) {
      child.on('message', (m: SandboxReply) => onReply(m));
      child.once('error', (e) => onExit(`could not start the sandbox process (${cmd.command}): ${e.message}`));
      child.once('exit', (code, signal) => {
        const why = signal ? `killed by ${signal}` : `exited with code ${code}`;
        onExit(`sandbox process ${why}${tail.trim() ? `: ${tail.trim().split('\n').slice(-6).join(' | ')}` : ''}`);
      });
    },
    terminate() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
