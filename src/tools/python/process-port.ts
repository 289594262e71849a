// A SandboxPort backed by a separate OS process (Node): the bundled sandbox entry started with
// sandboxCommand() (empty environment, permission model, heap cap, rlimits, no network), spoken
// to over the IPC channel. Each process gets its own scratch folder, deleted when it ends.
// Used by node-pool.ts; tests/unit/tools/tools-python*.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxPort, SandboxReply, SandboxRequest } from './protocol';
import { sandboxCommand, type Isolation, type SandboxLimits } from './isolation';
import { sandboxRoot } from './worker-bundle';

/** How much of the process's own stdout/stderr (Pyodide warnings, fatal errors) is kept for crash messages. */
const TAIL_BYTES = 2000;
/** Where an init's snapshot bytes are put for the process to read (its IPC channel is JSON: 30 MB of
 * bytes through it took a second; a file in its scratch folder, a few milliseconds). */
const SNAPSHOT_IN = 'start.snapshot';

/** The request as the process receives it: snapshot bytes moved into a file of its folder. */
function outgoing(msg: SandboxRequest, scratch: string): SandboxRequest {
  if (msg.kind !== 'init' || !msg.snapshot || !('bytes' in msg.snapshot)) return msg;
  try {
    writeFileSync(join(scratch, SNAPSHOT_IN), msg.snapshot.bytes);
    return { ...msg, snapshot: { file: SNAPSHOT_IN } };
  } catch {
    const { snapshot: _unused, ...plain } = msg;
    return plain; // no room for the file: this worker loads Pyodide from scratch
  }
}

/** The reply as the pool receives it: a snapshot file the process wrote read back as bytes. */
function incoming(msg: SandboxReply, scratch: string): SandboxReply {
  if (msg.kind !== 'snapshot' || !('file' in msg.data)) return msg;
  return { ...msg, data: { bytes: readFileSync(join(scratch, msg.data.file)) } };
}

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
      if (child.connected) child.send(outgoing(msg, scratch));
    },
    listen(onReply, onExit) {
      child.on('message', (m: SandboxReply) => {
        let reply: SandboxReply;
        try {
          reply = incoming(m, scratch);
        } catch (e) {
          reply = { kind: 'error', id: m.id, message: `could not read the snapshot the sandbox process wrote: ${(e as Error).message}` };
        }
        onReply(reply);
      });
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
