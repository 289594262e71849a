// Command-line argument parsing shared by every CLI command: `--key value`, `--flag`,
// `--key=value`, repeated keys collected, positionals kept. Typed getters name the option at
// fault in their errors. Tested by tests/unit/util/args.test.ts.

export interface ParsedArgs {
  positionals: string[];
  /** Last value of each option (true for a bare flag). */
  flags: Record<string, string | true>;
  /** Every value of each option, in order (for repeatable options such as --set). */
  all: Record<string, string[]>;
}

export interface CliCommand {
  name: string;
  summary: string;
  /** Full help text, printed by `<command> --help`. */
  usage: string;
  run(args: ParsedArgs): Promise<number>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const out: ParsedArgs = { positionals: [], flags: {}, all: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      out.positionals.push(a);
      continue;
    }
    let key = a.slice(2), value: string | true = true;
    const eq = key.indexOf('=');
    if (eq >= 0) {
      value = key.slice(eq + 1);
      key = key.slice(0, eq);
    } else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) {
      value = argv[++i];
    }
    out.flags[key] = value;
    (out.all[key] ??= []).push(value === true ? 'true' : value);
  }
  return out;
}

export function getString(a: ParsedArgs, key: string): string | undefined;
export function getString(a: ParsedArgs, key: string, fallback: string): string;
export function getString(a: ParsedArgs, key: string, fallback?: string): string | undefined {
  const v = a.flags[key];
  if (v === undefined) return fallback;
  if (v === true) throw new Error(`--${key} needs a value`);
  return v;
}

export function requireString(a: ParsedArgs, key: string): string {
  const v = getString(a, key);
  if (v === undefined) throw new Error(`--${key} is required`);
  return v;
}

export function getNumber(a: ParsedArgs, key: string): number | undefined;
export function getNumber(a: ParsedArgs, key: string, fallback: number): number;
export function getNumber(a: ParsedArgs, key: string, fallback?: number): number | undefined {
  const v = getString(a, key);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`--${key} must be a number, got "${v}"`);
  return n;
}

export function getBool(a: ParsedArgs, key: string, fallback: boolean): boolean {
  const v = a.flags[key];
  if (v === undefined) return fallback;
  if (v === true || v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new Error(`--${key} must be true or false, got "${v}"`);
}
