// What the shipped agent's tokenizer is made of (shared by scripts/make-agent-tokenizer.ts, which
// builds it, scripts/train-agent.ts and tests/unit/tooling/agent-tokenizer.test.ts): where the model folder
// lives, the vocabulary size, the pre-tokenizer split and the added special tokens.

export const AGENT_MODEL_DIR = 'public/models/agent-tiny';
export const AGENT_VOCAB_SIZE = 1024;
/** GPT-2's split with single digits (as Qwen2 does), so numbers are copied digit by digit. */
export const AGENT_SPLIT_REGEX = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
/** Special tokens, in id order after the BPE vocab; the tool tags are not "special" (decoding keeps them), as in Qwen2.5. */
export const AGENT_SPECIAL_TOKENS: readonly [string, boolean][] = [
  ['<|endoftext|>', true], ['<|im_start|>', true], ['<|im_end|>', true],
  ['<tool_call>', false], ['</tool_call>', false], ['<tool_response>', false], ['</tool_response>', false],
];
