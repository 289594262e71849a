// `npm run cli -- chat`: talk to the shipped default agent (or --model / --adapter) in the
// terminal. Each line read from stdin (a TTY or a pipe) is a user turn; the reply runs through the
// agent loop with the config's environment tools (python in the sandboxed pool, search over the
// corpus), streaming the tokens, showing every tool call's result, until the model answers.
// Tested by tests/unit/cli/cli-chat.test.ts (piped stdin).
import { createInterface } from 'node:readline';
import type { CliCommand } from '../../util/args';
import { getBool, getNumber, getString } from '../../util/args';
import { AGENT_LABEL, terminalSink } from '../chat-stream';
import { DEFAULT_MODEL, DEFAULT_PRESET } from '../defaults';
import { readConfig } from './train';
import type { ChatMessage } from '../../agents/chat-template';
import type { ToolResult } from '../../agents/loop';
import { ChatAgent } from '../../rl/chat-agent';
import { loadRunModel, loadTasksFor, startServices } from '../../run/rl-node-run';

export const command: CliCommand = {
  name: 'chat',
  summary: 'talk to the default agent (or --model / --adapter) in the terminal, tools executed',
  usage: `Usage: npm run cli -- chat [--model DIR] [--adapter DIR] [options]

Reads one user message per line from stdin (typed, or piped: \`echo "..." | npm run cli -- chat\`).
Each reply streams after "${AGENT_LABEL.trim()}"; the tool calls it makes run (python in the sandboxed
Pyodide pool, search over the config's corpus) and their responses print after "tool NAME".
/reset starts a new conversation, /exit (or end of input) quits.

  --config F              environment (tools, system prompt), model and tool limits; default
                          ${DEFAULT_PRESET} (the agent env: python + search over datasets/agent_corpus.jsonl)
  --model PATH            overrides model.path (default: the shipped default agent ${DEFAULT_MODEL})
  --adapter DIR           PEFT LoRA adapter to apply (e.g. runs/agent_grpo/adapter)
  --temperature T         0 = greedy (default 0)
  --seed S                sampling seed (default 0)
  --max-new-tokens N      tokens per assistant turn (default 128)
  --max-turns N           assistant turns per reply, tool calls included (default 4)
  --system TEXT           system prompt (default: the environment's, as its tasks open)
  --prefill TEXT          text forced at the start of every reply (mask as in training); ending it
                          with <|im_end|> ends the turn there, e.g. a forced tool call
  --tune true|false       time kernel variants at load (default true; false starts faster)
  --allow-weak-sandbox    run model-written Python below the "sealed" sandbox level`,
  async run(args) {
    const log = (s: string) => process.stderr.write(s);
    const out = (s: string) => process.stdout.write(s);
    const cfg = readConfig(args, log);
    const temperature = getNumber(args, 'temperature', 0);
    const seed = getNumber(args, 'seed', 0);
    const maxNew = getNumber(args, 'max-new-tokens', 128);
    const maxTurns = getNumber(args, 'max-turns', 4);
    // --adapter, else the config's model.adapter (readConfig puts --adapter there too).
    const adapter = cfg.model.adapter ?? undefined;
    const m = await loadRunModel(cfg, log, adapter, { tune: getBool(args, 'tune', true) });
    const svc = await startServices(cfg);
    let agent: ChatAgent | undefined;
    try {
      agent = new ChatAgent(cfg, svc.services, { rt: m.rt, model: m.model, tokenizer: m.loaded.tokenizer }, terminalSink(out));
      const prefill = getString(args, 'prefill');
      const system = systemMessages(args, () => agent!.systemMessages(loadTasksFor(cfg, 'eval', () => {})[0]));
      log(`chat: ${cfg.model.path}${adapter ? ` + ${adapter}` : ''}, tools ${agent.toolNames().join(', ') || 'none'}, ` +
        `temperature ${temperature}, context ${agent.maxTokens} tokens; /reset, /exit\n`);

      let history: ChatMessage[] = [];
      let reply = 0;
      const tty = process.stdin.isTTY === true;
      const rl = createInterface({ input: process.stdin, output: tty ? process.stdout : undefined, terminal: tty, prompt: 'you> ' });
      rl.on('SIGINT', () => rl.close());
      if (tty) rl.prompt();
      for await (const raw of rl) {
        const line = raw.trim();
        if (!tty) out(`you> ${line}\n`);
        if (line === '/exit') break;
        if (line === '/reset') {
          history = [];
          out('(new conversation)\n');
        } else if (line) {
          const ep = await agent.reply([...system, ...history, { role: 'user', content: line }],
            { maxTurns, maxNewTokens: maxNew, temperature, seed: seed + reply }, `chat${reply}`, (results) => showTools(results, out), prefill);
          reply++;
          if (ep.finishReason === 'error') out(`(error: ${ep.error}; /reset starts a new conversation)\n`);
          else history = ep.messages.slice(ep.messages.findIndex((msg) => msg.role !== 'system'));
          if (ep.finishReason === 'max_tokens') out(`(cut at the token limit: ${maxNew} per turn, ${agent.maxTokens} in the context; /reset or --max-new-tokens)\n`);
          if (ep.finishReason === 'max_turns') out(`(still calling tools after ${maxTurns} turns; --max-turns raises the limit)\n`);
        }
        if (tty) rl.prompt();
      }
      rl.close();
    } finally {
      agent?.free();
      m.model.dispose();
      await svc.pool?.close();
    }
    return 0;
  },
};

/** --system, or the system message(s) the environment opens its tasks with. */
function systemMessages(args: Parameters<CliCommand['run']>[0], envOpening: () => ChatMessage[]): ChatMessage[] {
  const text = getString(args, 'system');
  if (text !== undefined) return text ? [{ role: 'system', content: text }] : [];
  return envOpening().filter((msg) => msg.role === 'system');
}

/** Each tool call of the turn and the response the model reads next. */
function showTools(results: ToolResult[], out: (s: string) => void): void {
  for (const r of results) {
    const status = r.ok ? `ran in ${r.latencyMs.toFixed(0)} ms` : `failed (${r.error ?? 'error'})`;
    out(`tool ${r.name || '?'} ${JSON.stringify(r.args)} ${status}:\n${r.text.replace(/^/gm, '  ')}\n`);
  }
}
