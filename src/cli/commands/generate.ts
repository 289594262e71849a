// `npm run cli -- generate`: text generation with the GPU engine from a prompt, a chat
// (--messages, rendered with the model's chat template) or BOS. Streams the text to stdout and
// prints tokens/s on stderr. Tested by tests/unit/cli/cli-model.test.ts.
import { readFileSync } from 'node:fs';
import type { CliCommand } from '../../util/args';
import { getNumber, getString } from '../../util/args';
import { loadCliModel, MODEL_OPTIONS } from '../../model/node-load';
import { generate } from '../../model/generate';
import { renderChat, type ChatMessage } from '../../agents/chat-template';

export const command: CliCommand = {
  name: 'generate',
  summary: 'generate text from a prompt, a chat or BOS',
  usage: `Usage: npm run cli -- generate --model PATH [--prompt TEXT | --messages F.json] [options]

${MODEL_OPTIONS}
  --prompt TEXT           text to continue (with the tokenizer's BOS when it adds one)
  --messages F.json       a chat: [{"role": "system"|"user"|"assistant"|"tool", "content": "..."}]
                          rendered with the model's chat template and a generation prompt
  --temperature T         0 = greedy (default 1)
  --top-p P               nucleus sampling (default 1 = off)
  --top-k K               keep the K most likely tokens (default 0 = off)
  --max-new-tokens N      default 256
  --seed S                sampling seed (default 0)
  --stop TEXT             stop when the text contains TEXT (repeatable)

With neither --prompt nor --messages it starts from BOS.`,
  async run(args) {
    const { rt, loaded, model } = await loadCliModel(args);
    const tok = loaded.tokenizer;
    const promptText = getString(args, 'prompt');
    const messagesFile = getString(args, 'messages');
    let prompt: number[];
    if (messagesFile) {
      let messages: ChatMessage[];
      try {
        messages = JSON.parse(readFileSync(messagesFile, 'utf8')) as ChatMessage[];
      } catch (e) {
        throw new Error(`${messagesFile}: ${(e as Error).message} (expected a JSON array of {"role", "content"} messages)`);
      }
      if (!Array.isArray(messages)) throw new Error(`${messagesFile}: expected a JSON array of messages`);
      const text = renderChat(tok.chatTemplate, messages, { addGenerationPrompt: true });
      prompt = tok.encode(text, { addSpecialTokens: false });
    } else if (promptText !== undefined) {
      prompt = tok.encode(promptText, { addSpecialTokens: true });
    } else {
      prompt = [];
    }
    const bos = tok.bosTokenId ?? loaded.config.bosTokenId;
    if (prompt.length === 0) {
      if (bos === undefined) throw new Error('This model has no BOS token: give --prompt or --messages');
      prompt = [bos];
    }
    const stopIds = [...new Set([...loaded.config.eosTokenIds, ...tok.eosTokenIds])];
    const t0 = performance.now();
    const [g] = await generate(rt, model, tok, [prompt], {
      maxNewTokens: getNumber(args, 'max-new-tokens', 256),
      temperature: getNumber(args, 'temperature', 1),
      topP: getNumber(args, 'top-p', 1),
      topK: getNumber(args, 'top-k', 0),
      seed: getNumber(args, 'seed', 0),
      stopTokenIds: stopIds,
      stopStrings: args.all.stop ?? [],
      onText: (_s, text) => process.stdout.write(text),
    });
    const secs = (performance.now() - t0) / 1000;
    process.stdout.write('\n');
    process.stderr.write(`${g.tokens.length} tokens in ${secs.toFixed(2)} s: ${(g.tokens.length / secs).toFixed(1)} tokens/s (prompt ${prompt.length} tokens, finished: ${g.finishReason})\n`);
    model.dispose();
    return 0;
  },
};
