// The terminal's sink of a streamed agent turn (src/agents/streaming-stepper.ts): each turn prints
// after an `agent>` label and ends its line. Used by the `chat` command; exercised by
// tests/unit/cli/cli-chat.test.ts.
import type { TurnSink } from '../agents/streaming-stepper';

export const AGENT_LABEL = 'agent> ';

export function terminalSink(write: (s: string) => void): TurnSink {
  return { open: () => write(AGENT_LABEL), text: write, close: () => write('\n') };
}
