// Task JSONL schemas of the built-in environments (math, code_exec, search_qa, agent): the task
// types, and one field table per environment that the loader checks every line against (each
// row: field name, required or not, what it must be, and a doc line for docs/envs.md).
// Used by src/data/loader.ts and the environments; tested by tests/unit/data/data-loader.test.ts.

export type EnvName = 'math' | 'code_exec' | 'search_qa' | 'agent';
export const ENV_NAMES: readonly EnvName[] = ['math', 'code_exec', 'search_qa', 'agent'];

/** Fields every task has. */
export interface TaskBase {
  /** Unique within a file; integers in the file become strings. */
  task_id: string;
  /** Free-form JSON object (source, split, difficulty...); {} when absent. */
  metadata: Record<string, unknown>;
}

/** GSM8K-style word problem with a numeric final answer. */
export interface MathTask extends TaskBase {
  question: string;
  /** The reference final answer (GSM8K: what follows `####`, commas stripped). */
  answer: string;
  /** Worked solution, for SFT or inspection (never shown to the model by the env). */
  solution?: string;
}

/** MBPP-style programming task checked by assert statements. */
export interface CodeTask extends TaskBase {
  /** The problem statement. */
  prompt: string;
  /** Code the model starts from (e.g. the function signature); may be empty. */
  starter_code: string;
  /** Python assert statements, each run on its own after the solution. */
  tests: string[];
  /** Python run after the solution and before the tests (MBPP's test_setup_code). */
  test_setup_code?: string;
  /** A solution that passes the tests. */
  reference_solution: string;
}

/** Open-domain question with gold answer strings (SQuAD style). */
export interface SearchQaTask extends TaskBase {
  question: string;
  /** Every accepted answer; scores take the max over them. */
  answers: string[];
  /** The corpus document holding the answer, when known (e.g. `Super_Bowl_50#0`). */
  gold_doc_id?: string;
}

/** The shipped agent's task families (datasets/agent_*.jsonl, scripts/make-agent-data.ts). */
export type AgentFamily = 'calculator' | 'lookup';
export const AGENT_FAMILIES: readonly AgentFamily[] = ['calculator', 'lookup'];

/** A task of the `agent` environment: a word problem (python tool) or a corpus question (search tool). */
export interface AgentTask extends TaskBase {
  family: AgentFamily;
  question: string;
  /** The reference answer: a number (calculator) or a short string from the corpus (lookup). */
  answer: string;
}

export interface TaskByEnv {
  math: MathTask;
  code_exec: CodeTask;
  search_qa: SearchQaTask;
  agent: AgentTask;
}
export type Task = TaskByEnv[EnvName];

/** Checks one value: null when valid, else what it must be ("must be a non-empty string"). */
export type FieldCheck = (value: unknown) => string | null;

export interface FieldSpec {
  name: string;
  required: boolean;
  check: FieldCheck;
  /** What the value normalises to (e.g. an integer task_id becomes a string). */
  normalize?: (value: unknown) => unknown;
  doc: string;
}

const isStr = (v: unknown): v is string => typeof v === 'string';

export const checks = {
  nonEmptyString: (v: unknown) => (isStr(v) && v.trim() !== '' ? null : 'must be a non-empty string'),
  string: (v: unknown) => (isStr(v) ? null : 'must be a string (it may be empty)'),
  idLike: (v: unknown) =>
    (isStr(v) && v.trim() !== '') || (typeof v === 'number' && Number.isInteger(v)) ? null : 'must be a non-empty string or an integer',
  stringOrNumber: (v: unknown) =>
    (isStr(v) && v.trim() !== '') || (typeof v === 'number' && Number.isFinite(v)) ? null : 'must be a non-empty string or a number',
  nonEmptyStringArray: (v: unknown) =>
    Array.isArray(v) && v.length > 0 && v.every((s) => isStr(s) && s.trim() !== '') ? null : 'must be a non-empty array of strings',
  object: (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? null : 'must be a JSON object'),
} satisfies Record<string, FieldCheck>;

const toStr = (v: unknown) => String(v);

const TASK_ID: FieldSpec = {
  name: 'task_id', required: true, check: checks.idLike, normalize: toStr,
  doc: 'unique id (string, or an integer turned into one)',
};
const METADATA: FieldSpec = {
  name: 'metadata', required: false, check: checks.object,
  doc: 'JSON object: source, split, anything else; `{}` when absent',
};

export const TASK_FIELDS: Record<EnvName, FieldSpec[]> = {
  math: [
    TASK_ID,
    { name: 'question', required: true, check: checks.nonEmptyString, doc: 'the problem, shown to the model' },
    { name: 'answer', required: true, check: checks.stringOrNumber, normalize: toStr, doc: 'reference final answer (a number for GSM8K, commas stripped)' },
    { name: 'solution', required: false, check: checks.string, doc: 'worked solution (GSM8K: the reasoning with its `#### answer` line)' },
    METADATA,
  ],
  code_exec: [
    TASK_ID,
    { name: 'prompt', required: true, check: checks.nonEmptyString, doc: 'the problem statement' },
    { name: 'starter_code', required: true, check: checks.string, doc: 'code shown as a starting point (e.g. the signature); may be ""' },
    { name: 'tests', required: true, check: checks.nonEmptyStringArray, doc: 'assert statements, each checked on its own' },
    { name: 'test_setup_code', required: false, check: checks.string, doc: 'run after the solution, before the tests' },
    { name: 'reference_solution', required: true, check: checks.nonEmptyString, doc: 'a solution that passes every test' },
    METADATA,
  ],
  search_qa: [
    TASK_ID,
    { name: 'question', required: true, check: checks.nonEmptyString, doc: 'the question' },
    { name: 'answers', required: true, check: checks.nonEmptyStringArray, doc: 'accepted answers (scores take the max)' },
    { name: 'gold_doc_id', required: false, check: checks.nonEmptyString, doc: 'id of the corpus document with the answer' },
    METADATA,
  ],
  agent: [
    TASK_ID,
    {
      name: 'family', required: true, doc: 'calculator (answer with the python tool) or lookup (answer with the search tool)',
      check: (v) => (typeof v === 'string' && (AGENT_FAMILIES as readonly string[]).includes(v) ? null : `must be one of ${AGENT_FAMILIES.join(', ')}`),
    },
    { name: 'question', required: true, check: checks.nonEmptyString, doc: 'the question, shown to the model' },
    { name: 'answer', required: true, check: checks.stringOrNumber, normalize: toStr, doc: 'reference answer (a number for calculator, corpus words for lookup)' },
    METADATA,
  ],
};

/** "a non-empty array of strings" from "must be a non-empty array of strings", for "is missing" messages. */
export function expectation(spec: FieldSpec): string {
  return (spec.check(undefined) ?? '').replace(/^must be /, '');
}
