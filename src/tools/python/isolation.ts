// What the operating system and Node give the Python sandbox in Node, and the command line that
// starts one sandbox process with all of it: an empty environment, Node's permission model, a
// JS heap cap, rlimits through `prlimit` and an empty network namespace through `unshare`.
// Levels are documented in README ("Python sandbox isolation"); tests/unit/tools/tools-python-escape.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Ordered isolation levels of the Node sandbox (higher is stronger). */
export const ISOLATION_LEVELS = ['process', 'restricted', 'sealed', 'full'] as const;
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number];

/** Model-written code is refused below this level unless allowWeakSandbox is set. */
export const MINIMUM_LEVEL: IsolationLevel = 'sealed';

export interface IsolationFeatures {
  /** Node's permission model: reads limited to Pyodide, writes to the scratch folder, no child processes, workers, addons or WASI. */
  permissions: boolean;
  /** An empty network namespace (`unshare --net`, with `--user --map-root-user` when not root). */
  network: boolean;
  /** rlimits set with `prlimit`: data segment (all JS + wasm memory), file size, open files, no core dumps. */
  rlimits: boolean;
}

export interface Isolation {
  level: IsolationLevel;
  features: IsolationFeatures;
  /** Prefix that wraps `node ...` (unshare / prlimit), empty when neither is used. */
  wrapper: string[];
  /** Why a feature is missing, for the CLI line. */
  missing: string[];
}

export interface IsolationOptions {
  /** Leave features out on purpose (tests of the refusal, or a platform where one misbehaves). */
  disable?: (keyof IsolationFeatures)[];
}

const UNSHARE = '/usr/bin/unshare';
const PRLIMIT = '/usr/bin/prlimit';

function works(cmd: string, args: string[]): boolean {
  if (!existsSync(cmd)) return false;
  const r = spawnSync(cmd, args, { stdio: 'ignore', timeout: 5000, env: {} });
  return r.status === 0;
}

function unsharePrefix(): string[] | null {
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const candidates = asRoot ? [['--net'], ['--net', '--user', '--map-root-user']] : [['--net', '--user', '--map-root-user']];
  for (const flags of candidates) if (works(UNSHARE, [...flags, '--', '/bin/true'])) return [UNSHARE, ...flags, '--'];
  return null;
}

let probed: { unshare: string[] | null; prlimit: boolean } | undefined;

/** Detects what this machine offers (probed once per process: two tiny commands). */
export function detectIsolation(opts: IsolationOptions = {}): Isolation {
  probed ??= { unshare: process.platform === 'linux' ? unsharePrefix() : null, prlimit: process.platform === 'linux' && works(PRLIMIT, ['--nofile=64', '--', '/bin/true']) };
  const off = new Set(opts.disable ?? []);
  const [major, minor] = process.versions.node.split('.').map(Number);
  const permissions = !off.has('permissions') && (major > 20 || (major === 20 && minor >= 12));
  const network = !off.has('network') && probed.unshare !== null;
  const rlimits = !off.has('rlimits') && probed.prlimit;
  const missing: string[] = [];
  if (!permissions) missing.push(off.has('permissions') ? 'permission model disabled' : `Node ${process.versions.node} has no usable permission model (need 20.12+)`);
  if (!network) missing.push(off.has('network') ? 'network namespace disabled' : 'no network namespace (`unshare --net` failed: unprivileged user namespaces off?)');
  if (!rlimits) missing.push(off.has('rlimits') ? 'rlimits disabled' : '`prlimit` not found');
  const level: IsolationLevel = !permissions ? 'process' : !network ? 'restricted' : rlimits ? 'full' : 'sealed';
  const wrapper: string[] = [];
  if (network && probed.unshare) wrapper.push(...probed.unshare);
  return { level, features: { permissions, network, rlimits }, wrapper, missing };
}

export function levelAtLeast(level: IsolationLevel, min: IsolationLevel): boolean {
  return ISOLATION_LEVELS.indexOf(level) >= ISOLATION_LEVELS.indexOf(min);
}

/** One line for the CLI: the level obtained and what is missing. */
export function describeIsolation(iso: Isolation): string {
  const have = [
    'separate process, empty environment',
    iso.features.permissions ? 'fs/process/worker/addon permissions' : '',
    iso.features.network ? 'no network' : '',
    iso.features.rlimits ? 'rlimits' : '',
  ].filter(Boolean).join(', ');
  return `python sandbox isolation: ${iso.level} (${have})${iso.missing.length ? `; missing: ${iso.missing.join('; ')}` : ''}`;
}

/** Throws (saying what to do) when model-written code would run below MINIMUM_LEVEL. */
export function requireIsolation(iso: Isolation, allowWeak: boolean): void {
  if (levelAtLeast(iso.level, MINIMUM_LEVEL) || allowWeak) return;
  throw new Error(
    `python sandbox: isolation level "${iso.level}" is below the minimum "${MINIMUM_LEVEL}" (${iso.missing.join('; ')}). ` +
      'Model-written code could reach the network or this machine. Enable unprivileged user namespaces ' +
      '(sysctl kernel.unprivileged_userns_clone=1) or run where `unshare --net` works, or accept the risk with ' +
      '--allow-weak-sandbox (CLI) / tools.python.allow_weak_sandbox: true (config).',
  );
}

export interface SandboxLimits {
  /** V8 old-space cap of the sandbox process, MiB. */
  jsHeapMb: number;
  /** RLIMIT_DATA of the process (JS heap + wasm memory + everything else), bytes. */
  dataBytes: number;
  /** RLIMIT_FSIZE: largest file the process may write, bytes. */
  fileBytes: number;
}

export interface SandboxCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The command that runs `entry` (a bundled .mjs) as a sandbox process. Reads: `readable` paths
 * only; writes: `scratch` only; no child processes, workers, addons, WASI or code from strings.
 */
export function sandboxCommand(iso: Isolation, entry: string, readable: string[], scratch: string, limits: SandboxLimits): SandboxCommand {
  const node: string[] = [];
  if (iso.features.permissions) {
    node.push('--experimental-permission', ...[entry, ...readable, scratch].map((p) => `--allow-fs-read=${p}`), `--allow-fs-write=${scratch}`);
  }
  node.push(
    '--disallow-code-generation-from-strings', '--no-warnings', '--no-addons',
    `--max-old-space-size=${limits.jsHeapMb}`, '--stack-size=4000', entry,
  );
  const prefix = [...iso.wrapper];
  if (iso.features.rlimits) {
    prefix.unshift(PRLIMIT, `--data=${limits.dataBytes}`, `--fsize=${limits.fileBytes}`, '--nofile=256', '--core=0', '--');
  }
  const all = [...prefix, process.execPath, ...node];
  return { command: all[0], args: all.slice(1), env: {} };
}
