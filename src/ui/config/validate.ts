// Validation of the Config panel's YAML with the CLI's own parser (src/rl/config-validate.ts: the same
// messages, did-you-mean included) plus where in the text the fault is, for the editor's lint
// underline: the key of the field a message names, or the YAML syntax error's position.
// Used by the config store slice and YamlEditor; exercised by tests/e2e/studio-config.spec.ts.
import { isMap, isScalar, parseDocument, type Node } from 'yaml';
import { ConfigError, parseConfig, type RlConfig } from '../../rl/config-validate';

export interface ConfigProblem {
  message: string;
  /** Character range in the text (the key at fault), or the whole first line when unknown. */
  from: number;
  to: number;
}

export type ConfigCheck = { ok: true; config: RlConfig } | { ok: false; problem: ConfigProblem };

/** The dotted field or section a CLI message is about ("unknown field rollout.grup_size", "x.y is 3; ..."). */
function pathOf(message: string): string | null {
  const unknown = /unknown (?:field|section) ([\w.]+)/.exec(message);
  if (unknown) return unknown[1];
  const field = /: ([a-z_]+(?:\.[a-z_]+)*) (?:is|\(|must)/.exec(message);
  return field ? field[1] : null;
}

/** The range of the key at `path` in the document, when it is there. */
function keyRange(root: Node | null, path: string): [number, number] | null {
  let node: Node | null = root;
  let range: [number, number] | null = null;
  for (const part of path.split('.')) {
    if (!node || !isMap(node)) return range;
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === part);
    if (!pair || !isScalar(pair.key) || !pair.key.range) return range;
    range = [pair.key.range[0], pair.key.range[1]];
    node = (pair.value as Node | null) ?? null;
  }
  return range;
}

export function checkConfigText(text: string, file: string): ConfigCheck {
  try {
    return { ok: true, config: parseConfig(text, file) };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const doc = parseDocument(text);
    const syntax = doc.errors[0];
    let range: [number, number] | null = syntax ? [syntax.pos[0], Math.max(syntax.pos[1], syntax.pos[0] + 1)] : null;
    if (!range) {
      const path = pathOf(e.message);
      range = path ? keyRange(doc.contents, path) : null;
    }
    const firstLine = Math.max(1, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
    const [from, to] = range ?? [0, firstLine];
    return { ok: false, problem: { message: e.message, from: Math.min(from, text.length), to: Math.min(Math.max(to, from), text.length) } };
  }
}

/** The text with one field set (comments and order kept); `value` null removes nothing, it sets null. */
export function setField(text: string, path: string, value: unknown): string {
  const doc = parseDocument(text);
  doc.setIn(path.split('.'), value);
  return doc.toString();
}
