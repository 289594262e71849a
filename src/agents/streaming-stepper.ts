// Streams an agent's assistant turns as they are sampled: wraps the loop's policy stepper (one
// slot), decodes each turn incrementally (a byte-level token that ends mid-character waits for the
// next one) and hands the new text to a TurnSink; stop ids end the turn and are not shown. The
// terminal chat (src/cli/chat-stream.ts) and the engine worker's chat (src/workers/engine/chat.ts)
// are its sinks. Exercised by tests/unit/cli/cli-chat.test.ts and tests/e2e/studio-playground.spec.ts.
import type { PolicyStepper } from './loop';
import type { StepSample } from '../model/gpu/session';
import type { Tokenizer } from '../model/tokenizer';
import type { SamplingParams } from '../reference/sampling';

/** Where a streamed turn goes: opened before its first text, closed at its stop id or when cut. */
export interface TurnSink {
  open(): void;
  text(delta: string): void;
  close(): void;
}

export class StreamingStepper implements PolicyStepper {
  private turn: number[] = [];
  private shown = 0;
  private isOpen = false;
  /** Teacher-forced ids that open each episode (the prefill), shown like sampled ones. */
  prefill: number[] = [];

  constructor(
    private readonly inner: PolicyStepper,
    private readonly tok: Tokenizer,
    private readonly stopIds: ReadonlySet<number>,
    private readonly sink: TurnSink,
  ) {}

  get B(): number {
    return this.inner.B;
  }

  /** A new episode: the loop appends its prompt and the prefill next. */
  reset(slot: number, stream?: number): void {
    this.inner.reset(slot, stream);
    this.endTurn();
    for (const id of this.prefill) this.show(id);
  }

  async step(newTokens: number[][], params: SamplingParams): Promise<StepSample> {
    const r = await this.inner.step(newTokens, params);
    if (r.ids[0] >= 0) this.show(r.ids[0]);
    return r;
  }

  /** Ends the current turn (a turn cut at a token limit has no stop id). */
  endTurn(): void {
    if (this.isOpen) {
      const rest = this.tok.decode(this.turn).slice(this.shown);   // a held partial character shows as U+FFFD
      if (rest) this.sink.text(rest);
      this.sink.close();
    }
    this.isOpen = false;
    this.turn = [];
    this.shown = 0;
  }

  private show(id: number): void {
    if (!this.isOpen) {
      this.sink.open();
      this.isOpen = true;
    }
    if (this.stopIds.has(id)) return this.endTurn();
    this.turn.push(id);
    const text = this.tok.decode(this.turn);
    if (text.endsWith('\uFFFD')) return;   // an incomplete UTF-8 sequence: wait for its next byte
    if (text.length > this.shown) this.sink.text(text.slice(this.shown));
    this.shown = text.length;
  }
}
