// The `preview-tokens` request: the tokens a model sees for a task's opening messages (the Datasets
// panel's preview), read from the model folder's tokenizer files only (no weights): the messages
// rendered and encoded by the agent loop's own TurnRenderer (chat template, generation prompt,
// special tokens; the env's tool list is not known here), and each token's text.
// Pure over a FileSource; tested by tests/unit/workers/preview-tokens.test.ts and, through the
// Datasets panel, tests/e2e/studio-drop-flow.spec.ts.
import type { ChatMessage } from '../../agents/chat-template';
import { TurnRenderer } from '../../agents/turn-render';
import type { FileSource } from '../../model/io/source';
import { loadTokenizer, type Tokenizer } from '../../model/tokenizer';
import { tokenPieces } from './decode';

/** One conversation as token ids and each token's text, in order. */
export interface TokenPreview {
  ids: number[];
  pieces: string[];
}

/** Each conversation as the agent loop opens it (the tokenizer's chat template, plain when it has none). */
export function previewWith(tok: Tokenizer, conversations: readonly ChatMessage[][]): TokenPreview[] {
  const renderer = new TurnRenderer(tok, { listTools: false });
  return conversations.map((messages) => {
    const { ids } = renderer.prompt(messages);
    return { ids, pieces: tokenPieces(tok, ids) };
  });
}

/** The worker's answer: the folder's tokenizer loaded (a message naming the folder when it cannot be). */
export async function previewTokens(source: FileSource, conversations: readonly ChatMessage[][]): Promise<TokenPreview[]> {
  let tok: Tokenizer;
  try {
    tok = await loadTokenizer(source);
  } catch (e) {
    throw new Error(`${source.name}: the tokenizer does not load (${(e as Error).message}); fix or replace the model in the Models panel`);
  }
  return previewWith(tok, conversations);
}
