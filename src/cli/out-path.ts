// Node only: the CLI's guards against losing work. A run folder (`--out DIR` of sft / train)
// that already holds files is refused unless the user says --resume (continue it) or --overwrite
// (start over, its old files removed); an output file is never one of the command's inputs and
// an existing one is replaced only with --overwrite. Tested by tests/unit/cli/out-path.test.ts.
import { existsSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { getBool, getString, type ParsedArgs } from '../util/args';

export type RunFolderIntent = 'new' | 'resume' | 'overwrite';

/** What to do with the run folder `dir`: 'fresh' (empty or new) or 'resume' (continue its files). */
export function prepareRunFolder(dir: string, intent: RunFolderIntent, command: string): 'fresh' | 'resume' {
  const entries = existsSync(dir) ? (statSync(dir).isDirectory() ? readdirSync(dir) : null) : [];
  if (entries === null) throw new Error(`${command}: --out ${dir} is a file, not a folder; pick a folder for the run`);
  if (intent === 'resume') return entries.length ? 'resume' : 'fresh';
  if (!entries.length) return 'fresh';
  if (intent === 'overwrite') {
    for (const e of entries) rmSync(resolve(dir, e), { recursive: true, force: true });
    return 'fresh';
  }
  throw new Error(`${command}: the run folder ${dir} already holds ${entries.slice(0, 4).join(', ')}${entries.length > 4 ? ', ...' : ''}; ` +
    'pass --resume to continue that run, --overwrite to delete it and start over, or pick another --out');
}

/** The path with symlinks resolved as far as it exists (so two spellings of one file compare equal). */
function canonical(p: string): string {
  const abs = resolve(p);
  if (existsSync(abs)) return realpathSync(abs);
  const parent = dirname(abs);
  return parent === abs ? abs : resolve(canonical(parent), abs.slice(parent.length + 1));
}

/**
 * Checks that the output file `out` is none of `inputs` (as `--flag path` pairs, for the error)
 * and, unless `overwrite`, does not exist yet.
 */
export function checkOutFile(out: string, inputs: [flag: string, path: string][], overwrite: boolean, command: string): void {
  const o = canonical(out);
  for (const [flag, path] of inputs) {
    if (canonical(path) === o) throw new Error(`${command}: --out ${out} is the same file as ${flag} ${path}; writing it would destroy the input: pick another --out`);
  }
  if (existsSync(o) && !overwrite) throw new Error(`${command}: --out ${out} already exists; pass --overwrite to replace it, or pick another --out`);
}

/** checkOutFile for a command's `--out` against its file options (--input, --data, --model, --tokenizer, --adapter, --config). */
export function checkOutFileOf(args: ParsedArgs, command: string): void {
  const out = getString(args, 'out');
  if (out === undefined) return;
  const inputs = INPUT_FLAGS.flatMap((f): [string, string][] => (args.all[f] ?? []).map((p) => [`--${f}`, p]));
  checkOutFile(out, inputs, getBool(args, 'overwrite', false), command);
}

const INPUT_FLAGS = ['input', 'data', 'dataset', 'model', 'tokenizer', 'adapter', 'config', 'run'];

/** True when `inner` is `outer` or lies below it (both canonical). */
function within(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith('/') ? outer : `${outer}/`);
}

/**
 * For commands writing a folder of files (`export`): `--out` must not hold, or lie inside, any
 * input (model folder, adapter, run folder, ...), and an existing non-empty folder is written
 * into only with --overwrite.
 */
export function checkOutFolderOf(args: ParsedArgs, command: string): void {
  const out = getString(args, 'out');
  if (out === undefined) return;
  const o = canonical(out);
  for (const f of INPUT_FLAGS) {
    for (const p of args.all[f] ?? []) {
      const i = canonical(p);
      if (within(i, o) || within(o, i)) throw new Error(`${command}: --out ${out} overlaps --${f} ${p}; writing there could destroy the input: pick another --out`);
    }
  }
  const entries = existsSync(o) ? (statSync(o).isDirectory() ? readdirSync(o) : null) : [];
  if (entries === null) throw new Error(`${command}: --out ${out} is a file, not a folder; pick a folder`);
  if (entries.length && !getBool(args, 'overwrite', false)) {
    throw new Error(`${command}: --out ${out} already holds ${entries.slice(0, 4).join(', ')}${entries.length > 4 ? ', ...' : ''}; pass --overwrite to write over its files, or pick another --out`);
  }
}
