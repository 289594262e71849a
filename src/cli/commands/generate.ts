// `npm run cli -- generate`: text generation with our GPU engine (or onnxruntime-web with
// --engine ort, src/cli/engine-option.ts) from a prompt, a chat (--messages, rendered with the
// model's chat template) or BOS; without --model, the shipped default agent with --prompt as a
// user turn. Streams the text to stdout and prints tokens/s on stderr. Tested by
// tests/unit/cli/cli-model.test.ts and tests/unit/cli/cli-chat.test.ts (the default).
import { readFileSync } from 'node:fs';
import type { CliCommand } from '../../util/args';
import { getBool, getNumber, getString } from '../../util/args';
import { DEFAULT_MODEL, fromRepo } from '../defaults';
import { loadCliModel, MODEL_OPTIONS } from '../../model/node-load';
import { ENGINE_OPTIONS, openCliEngine } from '../engine-option';
import { generateOn } from '../../model/generate';
import { renderChat, type ChatMessage } from '../../agents/chat-template';

export const command: CliCommand = {
  name: 'generate',
  summary: 'generate text from a prompt, a chat or BOS (default model: agent-tiny)',
  usage: `Usage: npm run cli -- generate [--model PATH] [--prompt TEXT | --messages F.json] [options]

${MODEL_OPTIONS}
                          default model: the shipped default agent ${DEFAULT_MODEL}
                          (from the repo root, --quant none unless given)
${ENGINE_OPTIONS}
  --prompt TEXT           text to continue (with the tokenizer's BOS when it adds one)
  --chat true|false       send --prompt as one user turn rendered with the model's chat template
                          (default true without --model, false with it)
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
    const isDefault = args.flags.model === undefined;
    if (isDefault) {
      args.flags.model = fromRepo(DEFAULT_MODEL);
      args.flags.quant ??= 'none';   // 263K parameters: NF4 would only add error
    }
    const log = (s: string) => process.stderr.write(s);
    const e = await openCliEngine(args, getString(args, 'model'), () => loadCliModel(args, log), log);
    const tok = e.tokenizer;
    const promptText = getString(args, 'prompt');
    const messagesFile = getString(args, 'messages');
    let prompt: number[];
    const asChat = promptText !== undefined && getBool(args, 'chat', isDefault);
    if (messagesFile || asChat) {
      let messages: ChatMessage[] = [{ role: 'user', content: promptText ?? '' }];
      if (messagesFile) {
        try {
          messages = JSON.parse(readFileSync(messagesFile, 'utf8')) as ChatMessage[];
        } catch (e) {
          throw new Error(`${messagesFile}: ${(e as Error).message} (expected a JSON array of {"role", "content"} messages)`);
        }
        if (!Array.isArray(messages)) throw new Error(`${messagesFile}: expected a JSON array of messages`);
      }
      const text = renderChat(tok.chatTemplate, messages, { addGenerationPrompt: true });
      prompt = tok.encode(text, { addSpecialTokens: false });
    } else if (promptText !== undefined) {
      prompt = tok.encode(promptText, { addSpecialTokens: true });
    } else {
      prompt = [];
    }
    const bos = tok.bosTokenId ?? e.config.bosTokenId;
    if (prompt.length === 0) {
      if (bos === undefined) throw new Error('This model has no BOS token: give --prompt or --messages');
      prompt = [bos];
    }
    const stopIds = [...new Set([...e.config.eosTokenIds, ...tok.eosTokenIds])];
    const t0 = performance.now();
    const [g] = await generateOn(e.engine, tok, [prompt], {
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
    await e.close();
    return 0;
  },
};
