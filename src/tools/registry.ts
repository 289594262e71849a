// The tool registry the agent loop calls: tools registered with a name, a description and
// JSON-Schema parameters (compiled with ajv at registration); rendered for Qwen2.5's <tools>
// prompt; calls validated, dispatched, timed and capped, and never thrown: every call returns
// text for the model plus metrics info.
// Tested by tests/unit/tools/tools-registry.test.ts (and through the browser harness).
import { compileSchema, type JsonSchema, type SchemaCheck } from './json-schema';
import { renderToolsSystemPrompt, type QwenTool } from './qwen-tools';

export interface ToolContext {
  /** Episode the call belongs to (the python tool keeps one namespace per episode). */
  episodeId: string;
  signal?: AbortSignal;
}

/** What a tool implementation returns. */
export interface ToolOutput {
  text: string;
  ok: boolean;
  error?: string;
  truncated?: boolean;
}

/** What registry.call returns: the model's text plus structured info for metrics. */
export interface ToolCallResult {
  text: string;
  ok: boolean;
  error?: string;
  latencyMs: number;
  truncated: boolean;
}

export interface Tool {
  name: string;
  description: string;
  parameters: JsonSchema;
  call(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
  /** Drop per-episode state (called by registry.endEpisode). */
  endEpisode?(episodeId: string): Promise<void> | void;
}

export interface RegistryOptions {
  /** Cap on the text the model sees per call, in characters (the middle is cut). */
  maxResponseChars: number;
}

export class ToolRegistry {
  private readonly byName = new Map<string, Tool>();
  private readonly checks = new Map<string, SchemaCheck>();
  readonly options: RegistryOptions;

  constructor(options: Partial<RegistryOptions> = {}) {
    this.options = { maxResponseChars: 4000, ...options };
  }

  register(tool: Tool): this {
    if (!/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(tool.name)) {
      throw new Error(`tool name "${tool.name}" must be 1-64 letters, digits, _ or - (and not start with a digit)`);
    }
    if (this.byName.has(tool.name)) throw new Error(`a tool named "${tool.name}" is already registered`);
    if (tool.parameters.type !== 'object') throw new Error(`tool "${tool.name}": parameters must be a JSON Schema of type "object"`);
    this.checks.set(tool.name, compileSchema(tool.parameters, `tool "${tool.name}"`));
    this.byName.set(tool.name, tool);
    return this;
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  /** The tools as the JSON objects Qwen's chat template expects in `tools`. */
  tools(): QwenTool[] {
    return [...this.byName.values()].map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }

  /** The system message content with the `# Tools` block appended. */
  renderSystemPrompt(system?: string): string {
    return renderToolsSystemPrompt(this.tools(), system);
  }

  /** Problems with a call's arguments (empty when valid). */
  validate(name: string, args: unknown): string[] {
    const check = this.checks.get(name);
    if (!check) return [`unknown tool "${name}"; available: ${this.names.join(', ') || 'none'}`];
    return check(args);
  }

  async call(name: string, args: unknown, ctx: ToolContext): Promise<ToolCallResult> {
    const t0 = performance.now();
    const done = (out: ToolOutput): ToolCallResult => {
      const { text, cut } = capText(out.text, this.options.maxResponseChars);
      const r: ToolCallResult = { text, ok: out.ok, latencyMs: performance.now() - t0, truncated: cut || !!out.truncated };
      if (out.error !== undefined) r.error = out.error;
      return r;
    };
    const problems = this.validate(name, args);
    if (problems.length) {
      const error = `invalid call to ${name}: ${problems.join('; ')}`;
      return done({ text: `Error: ${error}`, ok: false, error });
    }
    try {
      return done(await this.byName.get(name)!.call(args as Record<string, unknown>, ctx));
    } catch (e) {
      const error = `${name} failed: ${(e as Error).message}`;
      return done({ text: `Error: ${error}`, ok: false, error });
    }
  }

  async endEpisode(episodeId: string): Promise<void> {
    await Promise.all([...this.byName.values()].map((t) => t.endEpisode?.(episodeId)));
  }
}

/** Keep the head and the tail of long text, marking the cut. */
export function capText(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const marker = `\n...[${text.length - max} characters cut]...\n`;
  const keep = Math.max(0, max - marker.length);
  const head = Math.ceil(keep / 2);
  return { text: text.slice(0, head) + marker + text.slice(text.length - (keep - head)), cut: true };
}
