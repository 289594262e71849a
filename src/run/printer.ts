// The command line's view of a run: a RunEmit (src/run/events.ts) printing one progress line per
// step (SFT: step, loss, grad_norm, learning_rate, tokens/s on stdout; RL: the bar, reward, loss,
// kl, why a loss is 0, and a few example completions on the log), checkpoints and the export.
// No file or GPU access here. Exercised by tests/unit/cli/sft-cli.test.ts and the `train` command.
import { progressLine } from './rl-run';
import { formatStep, type SftMetrics } from './sft-run';
import type { MetricsRow, RunEmit } from './events';

export interface PrinterOptions {
  /** Progress lines of SFT (stdout in the CLI). */
  out: (line: string) => void;
  /** Everything else (stderr in the CLI). */
  log: (line: string) => void;
  /** Shows a path of the run folder (the CLI: an absolute path). */
  where: (path: string) => string;
  /** Completions shown per RL step (log.print_examples). */
  printExamples?: number;
}

const fmtReward = (v: number) => (Math.abs(v) >= 1e-3 || v === 0 ? v.toFixed(3) : v.toExponential(1));

/** The last assistant turn of a rollout's text ("role: content" lines). */
function lastAnswer(text: string): string {
  const i = text.lastIndexOf('assistant: ');
  return i < 0 ? text : text.slice(i + 'assistant: '.length);
}

export function printRun(o: PrinterOptions): RunEmit {
  let trainer = '', startStep = 0, row: MetricsRow | null = null, note: string | null = null, shown = 0;
  const examples: string[] = [];
  return (e) => {
    switch (e.kind) {
      case 'started':
        trainer = e.trainer;
        startStep = e.startStep;
        break;
      case 'metrics':
        row = e.row;
        note = null;
        shown = 0;
        examples.length = 0;
        break;
      case 'rollout':
        if (shown++ < (o.printExamples ?? 0)) examples.push(`  example (reward ${fmtReward(e.record.reward.total)}): ${JSON.stringify(lastAnswer(e.record.text).slice(0, 160))}`);
        break;
      case 'warning':
        if (trainer === 'sft') o.log(`warning: ${e.message}`);
        else note = e.message;
        break;
      case 'progress':
        if (!row) break;
        if (trainer === 'sft') o.out(formatStep(row as SftMetrics, e.total));
        else {
          o.log(progressLine(e.step, e.total, row, e.elapsedMs / 1000 / Math.max(1, e.step - startStep), note));
          for (const x of examples) o.log(x);
        }
        break;
      case 'checkpoint':
        o.log(`checkpoint: ${o.where(e.path)} (step ${e.step})`);
        break;
      case 'finished':
        if (e.export) o.log(`export: ${o.where(e.export.path)}${e.export.files ? ` (${[...e.export.files.keys()].join(', ')})` : ''}`);
        break;
      case 'failed':
        o.log(`failed at step ${e.step}: ${e.message}; ${e.lastCheckpoint ? `the last checkpoint is ${o.where(e.lastCheckpoint)}` : 'no checkpoint was written'}`);
        break;
      case 'cancelled':
        o.log(`stopped at step ${e.step}${e.lastCheckpoint ? ` (checkpoint ${o.where(e.lastCheckpoint)})` : ''}${e.export ? `; export of the steps so far: ${o.where(e.export.path)}` : ''}`);
        break;
    }
  };
}
