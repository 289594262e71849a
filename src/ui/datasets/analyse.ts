// Reads a JSONL dataset for the Datasets panel: detects its schema from the first object line
// (a task file of math / code_exec / search_qa / agent, or SFT chat), validates every line with the
// project's own loader (src/data/loader.ts: the CLI's errors, by line and field), and keeps the
// first tasks' opening messages as the environment builds them. Runs in dataset.worker.ts;
// exercised by tests/e2e/studio-datasets.spec.ts.
import { loadTasks, type LineProblem } from '../../data/loader';
import { ENV_NAMES, type EnvName, type MathTask, type Task } from '../../data/schemas';
import { MathEnv } from '../../envs/math/env';
import type { ChatMessage } from '../../agents/chat-template';

export type DatasetSchema = EnvName | 'sft' | 'unknown';

export interface TaskPreview {
  line: number;
  taskId: string;
  /** The opening messages the environment gives the model, when they need no service. */
  messages: ChatMessage[] | null;
  /** The task's fields as loaded (shown when messages are null, and for the answer). */
  fields: Record<string, unknown>;
}

export interface DatasetReport {
  fileName: string;
  bytes: number;
  schema: DatasetSchema;
  /** Why this schema was chosen (the keys that decided it). */
  schemaReason: string;
  /** Non-blank lines. */
  total: number;
  good: number;
  skipped: LineProblem[];
  warnings: LineProblem[];
  previews: TaskPreview[];
  /** Ids of the good tasks in file order (for the train/eval split). */
  taskIds: string[];
  /** What could not be checked and why (e.g. SFT lines need a model's tokenizer). */
  notes: string[];
  parseMs: number;
}

/** Keys that identify each schema, most specific first. */
const SIGNATURES: { schema: DatasetSchema; keys: string[] }[] = [
  { schema: 'code_exec', keys: ['prompt', 'tests'] },
  { schema: 'search_qa', keys: ['question', 'answers'] },
  { schema: 'agent', keys: ['family', 'question', 'answer'] },
  { schema: 'math', keys: ['question', 'answer'] },
  { schema: 'sft', keys: ['messages'] },
  { schema: 'sft', keys: ['text'] },
  { schema: 'sft', keys: ['ids'] },
];

/** The schema of the first line that is a JSON object, with the reason. */
export function detectSchema(text: string): { schema: DatasetSchema; reason: string } {
  for (const raw of text.split('\n', 200)) {
    if (!raw.trim()) continue;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch {
      continue;
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) continue;
    const keys = Object.keys(obj);
    const hit = SIGNATURES.find((s) => s.keys.every((k) => keys.includes(k)));
    if (hit) return { schema: hit.schema, reason: `first object line has ${hit.keys.map((k) => `"${k}"`).join(' and ')}` };
    return { schema: 'unknown', reason: `first object line has keys ${keys.map((k) => `"${k}"`).join(', ')}; expected a task (question/answer, prompt/tests, question/answers, family/question/answer) or SFT chat (messages)` };
  }
  return { schema: 'unknown', reason: 'no line of the first 200 is a JSON object' };
}

const PREVIEWS = 3;

function openingMessages(env: EnvName, task: Task): ChatMessage[] | null {
  // The math environment needs no service for its opening turn; code_exec and search_qa are
  // built around a Python pool and a search backend, which the Datasets panel does not start.
  return env === 'math' ? new MathEnv({}).initialMessages(task as MathTask) : null;
}

export function analyseDataset(text: string, fileName: string, bytes: number): DatasetReport {
  const t0 = performance.now();
  const { schema, reason } = detectSchema(text);
  const report: DatasetReport = {
    fileName, bytes, schema, schemaReason: reason, total: 0, good: 0, skipped: [], warnings: [], previews: [], taskIds: [], notes: [], parseMs: 0,
  };
  if ((ENV_NAMES as readonly string[]).includes(schema)) {
    const env = schema as EnvName;
    const r = loadTasks(env, text, fileName);
    report.total = r.total;
    report.good = r.tasks.length;
    report.skipped = r.skipped;
    report.warnings = r.warnings;
    report.taskIds = r.tasks.map((t) => t.task_id);
    const lineOf = goodLineNumbers(text, r.skipped);
    report.previews = r.tasks.slice(0, PREVIEWS).map((task, i) => ({
      line: lineOf[i], taskId: task.task_id, messages: openingMessages(env, task), fields: { ...task },
    }));
    if (env !== 'math') report.notes.push(`The ${env} environment's opening messages are shown as tokens once a model is chosen (the engine worker builds the environment from the config); the cards show the task fields.`);
  } else if (schema === 'sft') {
    report.total = text.split('\n').filter((l) => l.trim()).length;
    report.notes.push('SFT lines are validated by the SFT loader while it tokenizes them with the model\'s chat template: its check (lengths against data.max_length, skipped lines) and the token preview appear once a model is chosen.');
    report.previews = sftPreviews(text);
  }
  report.parseMs = performance.now() - t0;
  return report;
}

/** 1-based numbers of the non-blank lines that were not skipped, in order. */
function goodLineNumbers(text: string, skipped: LineProblem[]): number[] {
  const bad = new Set(skipped.map((p) => p.line));
  const out: number[] = [];
  text.split('\n').forEach((l, i) => {
    if (l.trim() && !bad.has(i + 1) && out.length < PREVIEWS) out.push(i + 1);
  });
  return out;
}

function sftPreviews(text: string): TaskPreview[] {
  const out: TaskPreview[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length && out.length < PREVIEWS; i++) {
    try {
      const obj = JSON.parse(lines[i]) as { messages?: ChatMessage[]; text?: string };
      out.push({ line: i + 1, taskId: `example ${out.length + 1}`, messages: Array.isArray(obj.messages) ? obj.messages : null, fields: obj as Record<string, unknown> });
    } catch {
      // not JSON: the SFT loader reports it with the model
    }
  }
  return out;
}
