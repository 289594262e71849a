// `npm run make-agent-tokenizer`: builds the shipped agent's tokenizer from the generated SFT
// traces (datasets/agent_sft.jsonl rendered with its chat template): byte-level BPE with a
// 1024-token vocabulary (256 bytes, 761 merges, 7 chat/tool special tokens), digits split one by
// one. Writes tokenizer.json and tokenizer_config.json (chat template, EOS <|im_end|>) into
// public/models/agent-tiny/. Deterministic. Tested by tests/unit/tooling/agent-tokenizer.test.ts.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderChat, type ChatMessage, type ToolSpec } from '../src/agents/chat-template';
import { addedToken, byteLevelBpeJson } from '../src/model/tokenizer/json';
import { trainByteLevelBpe } from './agent-data/bpe';
import { AGENT_CHAT_TEMPLATE } from './agent-data/chat-template';
import { AGENT_MODEL_DIR, AGENT_SPECIAL_TOKENS, AGENT_SPLIT_REGEX, AGENT_VOCAB_SIZE } from './agent-data/tokenizer-spec';


function renderedTraces(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => {
    const j = JSON.parse(l) as { messages: ChatMessage[]; tools?: ToolSpec[] };
    return renderChat(AGENT_CHAT_TEMPLATE, j.messages, { tools: j.tools });
  });
}

function main(): void {
  const texts = renderedTraces('datasets/agent_sft.jsonl');
  const specials = AGENT_SPECIAL_TOKENS.map(([t]) => t.replace(/[|]/g, '\\|'));
  const splitter = new RegExp(specials.join('|'), 'g');
  const pieces = texts.flatMap((t) => t.split(splitter)).filter((p) => p !== '');
  const bpe = trainByteLevelBpe(pieces, AGENT_SPLIT_REGEX, AGENT_VOCAB_SIZE - AGENT_SPECIAL_TOKENS.length);
  const base = Object.keys(bpe.vocab).length;
  const added = AGENT_SPECIAL_TOKENS.map(([t, special], i) => addedToken(base + i, t, special));
  const json = byteLevelBpeJson(bpe.vocab, bpe.merges, added, AGENT_SPLIT_REGEX);
  const config = {
    tokenizer_class: 'PreTrainedTokenizerFast',
    bos_token: null,
    eos_token: '<|im_end|>',
    pad_token: '<|endoftext|>',
    unk_token: null,
    model_max_length: 512,
    clean_up_tokenization_spaces: false,
    add_bos_token: false,
    chat_template: AGENT_CHAT_TEMPLATE,
  };
  mkdirSync(AGENT_MODEL_DIR, { recursive: true });
  writeFileSync(join(AGENT_MODEL_DIR, 'tokenizer.json'), JSON.stringify(json) + '\n');
  writeFileSync(join(AGENT_MODEL_DIR, 'tokenizer_config.json'), JSON.stringify(config, null, 2) + '\n');
  process.stderr.write(`tokenizer: ${base} BPE tokens (${bpe.merges.length} merges) + ${added.length} special = ${base + added.length}; ${AGENT_MODEL_DIR}/tokenizer.json\n`);
}

main();
