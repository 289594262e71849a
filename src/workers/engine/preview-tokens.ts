// The `preview-tokens` request (the Datasets panel's token preview), from the model folder's
// tokenizer files and config.json only (no weights). Task lines: the first input a run of the
// config feeds the model (rl/first-turn.ts: the env's system prompt and tool list, the template
// model.template picks, rollout.prefill), all context. SFT lines: the SFT loader's own tokens and
// loss mask (train/data.ts readSftJsonl at the run's max length), with its truncation and skip counts.
// Pure over a FileSource; tested by tests/unit/workers/preview-tokens.test.ts and, through the
// Datasets panel, tests/e2e/studio-drop-flow.spec.ts.
import type { EnvName, Task } from '../../data/schemas';
import type { FileSource } from '../../model/io/source';
import { parseModelConfig } from '../../model/hf-config';
import { readJson } from '../../model/io/source';
import { loadTokenizer, type Tokenizer } from '../../model/tokenizer';
import { DEFAULT_CONFIG, parseConfig, type RlConfig } from '../../rl/config-validate';
import { firstTurns, promptEnvironment, type ToolListing } from '../../rl/first-turn';
import { sftMaxLength, sftTemplateOf } from '../../run/trainer-settings';
import { readSftJsonl, type SkippedLine } from '../../train/data';
import { tokenPieces } from './decode';

/** What to preview: a task file's first tasks (by line), or an SFT file's text and the lines to show. */
export type PreviewData =
  | { kind: 'tasks'; schema: EnvName; fileName: string; tasks: { line: number; task: Task }[] }
  | { kind: 'sft'; fileName: string; text: string; lines: number[] };

/** One line as the model reads it: ids, each token's text, and per token 1 when the loss trains on it. */
export interface TokenPreview {
  ids: number[];
  pieces: string[];
  /** [T]: 1 on trained tokens (an SFT line's assistant turns), 0 on context (prompts, tools, every task token). */
  trained: number[];
  /** Tokens of the whole line (more than ids.length when the SFT loader cut it). */
  length: number;
  truncated: boolean;
  /** Task lines: how many of the last ids are rollout.prefill (forced, context). */
  prefillLength: number;
}

/** The SFT loader's verdict on the whole file at the run's max length. */
export interface SftCheck {
  maxLength: number;
  /** Where maxLength comes from ("data.max_length" or "min(512, the model's context)"). */
  maxLengthFrom: string;
  lines: number;
  examples: number;
  /** Lines longer than maxLength that the loader keeps, cut to their first maxLength tokens. */
  truncated: number;
  skipped: SkippedLine[];
  tokens: number;
  trainedTokens: number;
}

export interface DatasetTokenPreview {
  byLine: Record<number, TokenPreview>;
  /** Task files: the tools a run offers and whether the prompt lists them; null for SFT files. */
  tools: ToolListing | null;
  sft: SftCheck | null;
  /** What the preview assumed (e.g. the file's env differs from the config's data.env). */
  notes: string[];
}

const CONFIG_FILE = 'config.yaml';

/** The preview of `data` with a loaded tokenizer and the model's config.json fields it needs. */
export function previewWith(tok: Tokenizer, model: { maxPositions: number; vocabSize: number; eosTokenIds: readonly number[] }, configYaml: string | null, data: PreviewData): DatasetTokenPreview {
  const cfg: RlConfig = configYaml === null ? structuredClone(DEFAULT_CONFIG) : parseConfig(configYaml, CONFIG_FILE);
  const notes = configYaml === null ? [`${CONFIG_FILE} does not validate; the preview uses the defaults (fix the Config panel's text to see your settings)`] : [];
  const piecesOf = (ids: number[]) => tokenPieces(tok, ids);
  if (data.kind === 'tasks') {
    if (cfg.data.env !== data.schema) notes.push(`${data.fileName} is ${/^[aeiou]/.test(data.schema) ? 'an' : 'a'} ${data.schema} task file and ${CONFIG_FILE} has data.env ${cfg.data.env}: previewed as data.env ${data.schema} with the rest of ${CONFIG_FILE}`);
    const p = promptEnvironment(cfg, data.schema);
    const { turns, tools } = firstTurns(p.cfg, p.env, tok, data.tasks.map((t) => t.task), model.eosTokenIds);
    const byLine = Object.fromEntries(data.tasks.map((t, i) => {
      const ids = turns[i].ids;
      return [t.line, { ids, pieces: piecesOf(ids), trained: ids.map(() => 0), length: ids.length, truncated: false, prefillLength: turns[i].prefillLength }];
    }));
    return { byLine, tools, sft: null, notes };
  }
  const maxLength = sftMaxLength(cfg, model.maxPositions);
  const ds = readSftJsonl(data.text, data.fileName, { tokenizer: tok, maxLength, vocabSize: model.vocabSize, ...sftTemplateOf(cfg) });
  const show = new Set(data.lines);
  const byLine: Record<number, TokenPreview> = {};
  for (const ex of ds.examples) {
    if (!show.has(ex.line)) continue;
    byLine[ex.line] = { ids: ex.ids, pieces: piecesOf(ex.ids), trained: [0, ...ex.mask], length: ex.length, truncated: ex.truncated, prefillLength: 0 };
  }
  const sft: SftCheck = {
    maxLength, maxLengthFrom: cfg.data.max_length > 0 ? 'data.max_length' : `min(512, the model's context of ${model.maxPositions})`,
    lines: ds.lines, examples: ds.examples.length, truncated: ds.truncated, skipped: ds.skipped, tokens: ds.tokens, trainedTokens: ds.trainedTokens,
  };
  return { byLine, tools: null, sft, notes };
}

/** The worker's answer: the folder's tokenizer and config.json loaded (a message naming the folder when they cannot be). */
export async function previewTokens(source: FileSource, configYaml: string | null, data: PreviewData): Promise<DatasetTokenPreview> {
  let tok: Tokenizer;
  try {
    tok = await loadTokenizer(source);
  } catch (e) {
    throw new Error(`${source.name}: the tokenizer does not load (${(e as Error).message}); fix or replace the model in the Models panel`);
  }
  const mc = parseModelConfig(await readJson(source, 'config.json'), `${source.name}/config.json`);
  return previewWith(tok, { maxPositions: mc.maxPositions, vocabSize: mc.vocabSize, eosTokenIds: mc.eosTokenIds }, configYaml, data);
}
