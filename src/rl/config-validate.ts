// Validation of the RL config in ONE place: YAML text -> RlConfig with defaults, unknown keys
// rejected with a did-you-mean, every value checked against FIELDS (errors name the file, the
// field, the value and what to use), `--set key=value` overrides type-checked the same way,
// cross-field rules last. Also renders the README field table from the same docs.
// Tested by tests/unit/rl/rl-config.test.ts (errors, every preset in configs/, README table).
import { parse as parseYaml } from 'yaml';
import { DEFAULT_CONFIG, FIELDS, SFT_DEFAULTS, type FieldKind, type RlConfig } from './config-schema';
import { checkHttpTools, toolsConflict } from './tools-config';

export { DEFAULT_CONFIG, FIELDS, type RlConfig } from './config-schema';

export interface ConfigOverrides {
  /** `--set key=value` items, applied in order after the file. */
  sets?: string[];
  model?: string;
  dataset?: string;
  seed?: number;
  out?: string;
}

export class ConfigError extends Error {}

const SECTIONS = [...new Set(Object.keys(FIELDS).filter((k) => k.includes('.')).map((k) => k.split('.')[0]))];
/** Sections and sub-sections (tools.python): every proper prefix of a field path. */
const ALL_SECTIONS = [...new Set(Object.keys(FIELDS).flatMap((k) => k.split('.').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('.'))))];

/** Levenshtein distance (small strings: the field names). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return d[a.length][b.length];
}

/** The closest known name, when one is close enough to be a typo. */
export function didYouMean(name: string, known: readonly string[]): string | null {
  let best: string | null = null, bestD = Infinity;
  const leaf = name.split('.').pop() ?? name;
  for (const k of known) {
    if (name.length >= 4 && k.startsWith(name)) return k;   // a cut-off name: grpo.mask_truncated
    const d = Math.min(distance(name, k), distance(leaf, k.split('.').pop() ?? k) + (k.startsWith(name.split('.')[0] + '.') ? 0 : 2));
    if (d < bestD) { bestD = d; best = k; }
  }
  return best !== null && bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v) ?? String(v);

/** Why `v` does not fit `kind` ("use ..."), or null when it does. */
export function checkValue(kind: FieldKind, v: unknown): string | null {
  switch (kind.t) {
    case 'int':
      if (typeof v !== 'number' || !Number.isInteger(v) || v < kind.min || (kind.max !== undefined && v > kind.max)) {
        return `use an integer >= ${kind.min}${kind.max !== undefined ? ` and <= ${kind.max}` : ''}`;
      }
      return null;
    case 'number': {
      const want = [kind.min !== undefined ? `>= ${kind.min}` : '', kind.above !== undefined ? `> ${kind.above}` : '',
        kind.max !== undefined ? `<= ${kind.max}` : '', kind.below !== undefined ? `< ${kind.below}` : ''].filter(Boolean).join(' and ');
      const ok = typeof v === 'number' && Number.isFinite(v) && !(kind.min !== undefined && v < kind.min) && !(kind.above !== undefined && v <= kind.above)
        && !(kind.max !== undefined && v > kind.max) && !(kind.below !== undefined && v >= kind.below);
      return ok ? null : `use a number${want ? ` ${want}` : ''}`;
    }
    case 'bool':
      return typeof v === 'boolean' ? null : 'use true or false';
    case 'string':
      if (v === null && kind.nullable) return null;
      if (typeof v !== 'string' || (kind.nonEmpty && !v)) return `use a${kind.nonEmpty ? ' non-empty' : ''} string${kind.nullable ? ' or null' : ''}`;
      return null;
    case 'enum':
      return typeof v === 'string' && kind.values.includes(v) ? null : `use ${orList(kind.values)}`;
    case 'strings':
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return `use a list of strings${kind.values ? ` from ${kind.values.join(', ')}` : ''}`;
      if (kind.values) {
        const bad = v.find((x) => !kind.values!.includes(x as string));
        if (bad !== undefined) return `"${String(bad)}" is not one of ${kind.values.join(', ')}`;
      }
      return null;
    case 'weights':
      if (!isObject(v)) return 'use a mapping of reward part names to numbers, e.g. {correctness: 1}';
      for (const [k, x] of Object.entries(v)) if (typeof x !== 'number' || !Number.isFinite(x)) return `weight "${k}" is ${show(x)}; use a finite number`;
      return null;
    case 'http_tools': {
      const r = checkHttpTools(v, didYouMean);
      return 'error' in r ? r.error : null;
    }
  }
}

function orList(values: readonly string[]): string {
  return values.length <= 1 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

function setPath(cfg: RlConfig, path: string, v: unknown): void {
  const parts = path.split('.');
  let o = cfg as unknown as Record<string, unknown>;
  for (const p of parts.slice(0, -1)) o = o[p] as Record<string, unknown>;
  o[parts[parts.length - 1]] = Array.isArray(v) ? [...(v as unknown[])] : isObject(v) ? { ...v } : v;
}

export function getPath(cfg: RlConfig, path: string): unknown {
  let o: unknown = cfg;
  for (const p of path.split('.')) o = (o as Record<string, unknown>)[p];
  return o;
}

function applyField(cfg: RlConfig, where: string, path: string, v: unknown): void {
  const f = FIELDS[path];
  if (!f) {
    const hint = didYouMean(path, Object.keys(FIELDS));
    throw new ConfigError(`${where}: unknown field ${path}${hint ? `; did you mean ${hint}?` : `; known sections: ${SECTIONS.join(', ')}`}`);
  }
  const why = checkValue(f.kind, v);
  if (why) throw new ConfigError(f.kind.t === 'http_tools' ? `${where}: ${why}` : `${where}: ${path} is ${show(v)}; ${why}`);
  const http = f.kind.t === 'http_tools' ? checkHttpTools(v, didYouMean) : null;
  setPath(cfg, path, http && 'tools' in http ? http.tools : v);   // tools.http with its defaults filled
}

/** Walks the YAML mapping: sections (and sub-sections such as tools.search) are mappings, fields are leaves (env.weights a whole mapping). */
function applyRaw(cfg: RlConfig, where: string, raw: Record<string, unknown>, prefix = ''): void {
  for (const [k, v] of Object.entries(raw)) {
    const path = prefix ? `${prefix}.${k}` : k;
    const hasSubsections = prefix !== '' && ALL_SECTIONS.some((x) => x.startsWith(`${prefix}.`));
    if (FIELDS[path] || !isObject(v) || (prefix && !hasSubsections && !ALL_SECTIONS.includes(path))) applyField(cfg, where, path, v);
    else if (!ALL_SECTIONS.includes(path)) {
      const hint = didYouMean(path, [...ALL_SECTIONS, ...Object.keys(FIELDS)]);
      throw new ConfigError(`${where}: unknown section ${path}${hint ? `; did you mean ${hint}?` : `; known sections: ${SECTIONS.join(', ')}`}`);
    } else applyRaw(cfg, where, v, path);
  }
}

/** One `key=value` override; the value is read as YAML (numbers, booleans, lists, null). */
export function applySet(cfg: RlConfig, item: string): void {
  const eq = item.indexOf('=');
  if (eq <= 0) throw new ConfigError(`--set ${item}: expected key=value, e.g. --set grpo.beta=0.04`);
  const key = item.slice(0, eq).trim(), text = item.slice(eq + 1);
  let v: unknown;
  try {
    v = parseYaml(text) as unknown;
  } catch {
    v = text;
  }
  if (v === undefined) v = null;
  const f = FIELDS[key];
  if (f && f.kind.t === 'string' && v !== null && typeof v !== 'string') v = text;   // --set model.path=123 stays a string
  applyField(cfg, `--set ${item}`, key, v);
}

/** Rules between fields, checked after every override. */
function crossCheck(c: RlConfig, where: string): void {
  const fail = (msg: string): never => { throw new ConfigError(`${where}: ${msg}`); };
  if (!c.model.path) fail('model.path is empty; set it in the config or pass --model DIR');
  if (c.lora.mode === 'full' && c.model.quant !== 'none') fail('lora.mode is "full" but model.quant is "nf4"; full fine-tuning needs f32 weights: set model.quant: none');
  if (c.model.adapter !== null && c.lora.mode === 'full') fail(`model.adapter is ${c.model.adapter} but lora.mode is "full"; an adapter starts a LoRA policy: set lora.mode: lora (or merge it into a model folder with \`export --format merged\` and point model.path there)`);
  if (c.env.max_attempts > 1 && c.data.env !== 'code_exec') fail(`env.max_attempts is ${c.env.max_attempts} but data.env is "${c.data.env}"; test feedback and retries exist for code_exec only: remove env.max_attempts`);
  if (c.env.max_attempts > c.rollout.max_turns) fail(`env.max_attempts (${c.env.max_attempts}) is above rollout.max_turns (${c.rollout.max_turns}); every attempt is one assistant turn: raise max_turns to at least ${c.env.max_attempts}`);
  if (c.trainer === 'grpo' && c.rollout.group_size < 2) fail(`rollout.group_size is ${c.rollout.group_size}; GRPO compares episodes within a group: use 2 or more`);
  if (c.grpo.advantage !== 'grpo' && c.grpo.scale_rewards !== 'group') {
    fail(`grpo.scale_rewards is "${c.grpo.scale_rewards}" but grpo.advantage is "${c.grpo.advantage}", which fixes its own scaling; remove scale_rewards or set advantage: grpo`);
  }
  if (c.rollout.max_new_tokens >= c.rollout.max_tokens) fail(`rollout.max_new_tokens (${c.rollout.max_new_tokens}) must be below rollout.max_tokens (${c.rollout.max_tokens}), which also holds the prompt`);
  if (c.eval.samples > 1 && c.eval.temperature === 0) fail(`eval.samples is ${c.eval.samples} but eval.temperature is 0: greedy samples are identical; set eval.temperature > 0 (e.g. 1) for pass@k`);
  if (c.trainer === 'sft' && !c.data.dataset) fail('trainer is "sft" but data.dataset is null; set it to a chat JSONL file (or pass --dataset F)');
  if (c.trainer !== 'sft' && c.train.steps < 1) fail(`train.steps is 0; ${c.trainer} needs at least 1 step (0 means one epoch for trainer sft only)`);
  if (c.data.env_module !== null && c.data.dataset === null && c.trainer !== 'sft') fail(`data.env_module is ${c.data.env_module} but data.dataset is null; a custom environment reads its tasks from data.dataset (JSONL, one task object per line with a task_id)`);
  const tools = toolsConflict(c);
  if (tools) fail(tools);
  if (c.optim.schedule === 'cosine' && c.train.steps > 0 && c.optim.warmup_steps >= c.train.steps) fail(`optim.warmup_steps (${c.optim.warmup_steps}) must be below train.steps (${c.train.steps}) for a cosine schedule`);
}

/** The config from YAML text: defaults, the file, then the overrides; throws ConfigError. */
export function parseConfig(text: string, file: string, o: ConfigOverrides = {}): RlConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text) as unknown;
  } catch (e) {
    throw new ConfigError(`${file}: not valid YAML: ${(e as Error).message}`);
  }
  return resolveConfig(raw ?? {}, file, o);
}

/** The config from an already-parsed object (the UI's form, tests). */
export function resolveConfig(raw: unknown, file: string, o: ConfigOverrides = {}): RlConfig {
  if (!isObject(raw)) throw new ConfigError(`${file}: the top level must be a mapping of sections (model:, rollout:, grpo: ...), got ${show(raw)}`);
  const cfg = defaultsFor(trainerOf(raw, o.sets ?? []));
  applyRaw(cfg, file, raw);
  for (const s of o.sets ?? []) applySet(cfg, s);
  if (o.model !== undefined) applyField(cfg, '--model', 'model.path', o.model);
  if (o.dataset !== undefined) applyField(cfg, '--dataset', 'data.dataset', o.dataset);
  if (o.seed !== undefined) applyField(cfg, '--seed', 'train.seed', o.seed);
  if (o.out !== undefined) applyField(cfg, '--out', 'log.out_dir', o.out);
  crossCheck(cfg, file);
  return cfg;
}

/** The trainer the file or a `--set trainer=...` asks for (the defaults depend on it); checked later with the rest. */
function trainerOf(raw: Record<string, unknown>, sets: string[]): unknown {
  const set = [...sets].reverse().find((x) => x.trim().startsWith('trainer='));
  return set !== undefined ? set.slice(set.indexOf('=') + 1).trim() : raw.trainer;
}

/** The defaults of a trainer: DEFAULT_CONFIG, with SFT_DEFAULTS over it for sft. */
export function defaultsFor(trainer: unknown): RlConfig {
  const cfg = structuredClone(DEFAULT_CONFIG);
  if (trainer !== 'sft') return cfg;
  for (const [section, fields] of Object.entries(SFT_DEFAULTS)) {
    for (const [k, v] of Object.entries(fields)) setPath(cfg, `${section}.${k}`, v);
  }
  return cfg;
}

/** The README table of every field (name, default, doc), from FIELDS and DEFAULT_CONFIG. */
export function configFieldTable(): string {
  const rows = ['| field | default | what it does |', '|---|---|---|'];
  for (const [path, f] of Object.entries(FIELDS)) {
    const d = getPath(DEFAULT_CONFIG, path);
    const shown = Array.isArray(d) ? `[${d.join(', ')}]` : isObject(d) ? (Object.keys(d).length ? JSON.stringify(d) : '{} (env defaults)') : d === '' ? '(required)' : String(d);
    const kind = f.kind.t === 'enum' ? ` One of: ${f.kind.values.join(', ')}.` : '';
    rows.push(`| \`${path}\` | \`${shown}\` | ${f.doc.replaceAll('|', '\\|')}${kind} |`);
  }
  return rows.join('\n');
}
