// Streams an agent's turns to the terminal as they are sampled: wraps the agent loop's policy
// stepper (one slot), decodes each assistant turn incrementally (a byte-level token that ends
// mid-character waits for the next one) and prints it after an `agent>` label; stop ids end the
// line and are not shown. Used by the `chat` command; exercised by tests/unit/cli/cli-chat.test.ts.
import type { PolicyStepper } from '../agents/loop';
import type { StepSample } from '../model/gpu/session';
import type { Tokenizer } from '../model/tokenizer';
import type { SamplingParams } from '../reference/sampling';

export const AGENT_LABEL = 'agent> ';

export class StreamingStepper implements PolicyStepper {
  private turn: number[] = [];
  private shown = 0;
  private open = false;
  /** Teacher-forced ids that open each episode (the prefill), shown like sampled ones. */
  prefill: number[] = [];

  constructor(
    private readonly inner: PolicyStepper,
    private readonly tok: Tokenizer,
    private readonly stopIds: ReadonlySet<number>,
    private readonly write: (s: string) => void,
  ) {}

  get B(): number {
    return this.inner.B;
  }

  /** A new episode: the loop appends its prompt and the prefill next. */
  reset(slot: number): void {
    this.inner.reset(slot);
    this.endLine();
    for (const id of this.prefill) this.show(id);
  }

  async step(newTokens: number[][], params: SamplingParams): Promise<StepSample> {
    const r = await this.inner.step(newTokens, params);
    if (r.ids[0] >= 0) this.show(r.ids[0]);
    return r;
  }

  /** Ends the current line (a turn cut at a token limit has no stop id). */
  endLine(): void {
    if (this.open) this.write(this.tok.decode(this.turn).slice(this.shown) + '\n');   // a held partial character shows as U+FFFD
    this.open = false;
    this.turn = [];
    this.shown = 0;
  }

  private show(id: number): void {
    if (!this.open) {
      this.write(AGENT_LABEL);
      this.open = true;
    }
    if (this.stopIds.has(id)) return this.endLine();
    this.turn.push(id);
    const text = this.tok.decode(this.turn);
    if (text.endsWith('\uFFFD')) return;   // an incomplete UTF-8 sequence: wait for its next byte
    this.write(text.slice(this.shown));
    this.shown = text.length;
  }
}
