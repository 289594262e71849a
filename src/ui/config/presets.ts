// The config presets shipped in configs/ (the same files the CLI's --config reads), with the
// reason of each: the file's opening comment, and each field's own end-of-line comment.
// Used by the config store slice and ConfigPanel; exercised by tests/e2e/studio-config.spec.ts.
import { isMap, isScalar, parseDocument, type Node } from 'yaml';

export interface Preset {
  /** File name under configs/. */
  file: string;
  text: string;
  /** The opening comment lines, joined. */
  summary: string;
  /** Each set field and why (its comment), in file order. */
  reasons: { path: string; value: string; reason: string }[];
}

const raw = import.meta.glob('../../../configs/*.yaml', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

function collect(node: Node | null, prefix: string, out: Preset['reasons']): void {
  if (!node || !isMap(node)) return;
  for (const pair of node.items) {
    if (!isScalar(pair.key)) continue;
    const path = prefix ? `${prefix}.${String(pair.key.value)}` : String(pair.key.value);
    const v = pair.value as Node | null;
    if (v && isMap(v)) collect(v, path, out);
    else if (v) out.push({ path, value: v.toString().split('\n')[0].replace(/\s*#.*$/, ''), reason: (v.comment ?? '').trim() });
  }
}

function presetOf(file: string, text: string): Preset {
  const summary = text.split('\n').filter((l, i, all) => l.startsWith('#') && all.slice(0, i).every((x) => x.startsWith('#')))
    .map((l) => l.replace(/^#\s?/, '')).join(' ');
  const reasons: Preset['reasons'] = [];
  collect(parseDocument(text).contents, '', reasons);
  return { file, text, summary, reasons };
}

/** Training presets (search.example.yaml is the search proxy's settings, not a training config). */
export const PRESETS: readonly Preset[] = Object.entries(raw)
  .map(([path, text]) => presetOf(path.split('/').pop() ?? path, text))
  .filter((p) => p.file !== 'search.example.yaml')
  .sort((a, b) => a.file.localeCompare(b.file));

/** The studio opens on the shipped default agent's preset (public/models/agent-tiny, env agent). */
export const DEFAULT_PRESET = 'agent_grpo.yaml';
