// Chat rendering with the model's own Jinja chat template (tokenizer_config.json or
// chat_template.jinja, rendered by @huggingface/jinja), tools included, and a plain fallback
// template for base models without one. Used by the CLI (`generate --messages`) and the agent
// loop. Tested by tests/unit/agents/chat-template.test.ts against Qwen2.5's rendered_example.txt.
import { Template } from '@huggingface/jinja';

export interface ToolCall {
  type?: 'function';
  function: { name: string; arguments: Record<string, unknown> | string };
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: ToolCall[];
  /** For role 'tool': the tool's name (some templates show it). */
  name?: string;
}

/** A tool as chat templates expect it (OpenAI / Qwen style). */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface RenderOptions {
  tools?: ToolSpec[];
  /** End with the opening of an assistant turn, ready for generation. */
  addGenerationPrompt?: boolean;
  bosToken?: string;
  eosToken?: string;
}

/** For base models without a template: `role: content` lines, then `assistant:`. */
export const PLAIN_TEMPLATE =
  "{%- for m in messages %}{{ m['role'] + ': ' + m['content'] + '\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{ 'assistant:' }}{%- endif %}";

/** How a config's model.template picks the template: the tokenizer's, or plain with or without its tools block. */
export interface TemplateChoice {
  /** undefined: the tokenizer's template (plain when it has none). */
  template: string | undefined;
  /** False: the plain template does not list the tools. */
  listTools: boolean;
}

/** model.template (auto | plain | plain_no_tools) as the agent loop's template options. */
export function templateChoice(name: 'auto' | 'plain' | 'plain_no_tools'): TemplateChoice {
  return { template: name === 'auto' ? undefined : PLAIN_TEMPLATE, listTools: name !== 'plain_no_tools' };
}

const compiled = new Map<string, Template>();

export function renderChat(template: string | undefined, messages: ChatMessage[], opts: RenderOptions = {}): string {
  const src = template ?? PLAIN_TEMPLATE;
  let t = compiled.get(src);
  if (!t) {
    try {
      t = new Template(src);
    } catch (e) {
      throw new Error(`The chat template does not parse: ${(e as Error).message}. Fix chat_template in tokenizer_config.json (or chat_template.jinja).`);
    }
    compiled.set(src, t);
  }
  for (const [i, m] of messages.entries()) {
    if (!['system', 'user', 'assistant', 'tool'].includes(m.role)) throw new Error(`messages[${i}].role is "${m.role}"; use system, user, assistant or tool`);
    if (typeof m.content !== 'string') throw new Error(`messages[${i}].content must be a string`);
  }
  return t.render({
    messages,
    tools: opts.tools && opts.tools.length ? opts.tools : undefined,
    add_generation_prompt: opts.addGenerationPrompt ?? false,
    bos_token: opts.bosToken ?? '',
    eos_token: opts.eosToken ?? '',
  });
}
