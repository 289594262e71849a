// The converted task files shipped in datasets/ (written by scripts/convert-datasets.ts): which
// environment reads each, its split, its source and license. The UI and CLI list datasets from
// here. Tested by tests/unit/data-convert.test.ts (every file exists and loads without a skip).
import type { EnvName } from './schemas';

export interface ShippedDataset {
  /** File name under datasets/. */
  file: string;
  env: EnvName;
  /** Our split name: train or eval (MBPP also validation and prompt, its own splits). */
  split: 'train' | 'eval' | 'validation' | 'prompt';
  /** Where the tasks come from (the original split name in parentheses). */
  source: string;
  license: 'MIT' | 'CC-BY-4.0' | 'CC-BY-SA-4.0';
}

export const SHIPPED_DATASETS: readonly ShippedDataset[] = [
  { file: 'gsm8k_train.jsonl', env: 'math', split: 'train', source: 'GSM8K (train)', license: 'MIT' },
  { file: 'gsm8k_eval.jsonl', env: 'math', split: 'eval', source: 'GSM8K (test)', license: 'MIT' },
  { file: 'mbpp_train.jsonl', env: 'code_exec', split: 'train', source: 'MBPP (train, task ids 601-974)', license: 'CC-BY-4.0' },
  { file: 'mbpp_eval.jsonl', env: 'code_exec', split: 'eval', source: 'MBPP (test, task ids 11-510)', license: 'CC-BY-4.0' },
  { file: 'mbpp_validation.jsonl', env: 'code_exec', split: 'validation', source: 'MBPP (validation, task ids 511-600)', license: 'CC-BY-4.0' },
  { file: 'mbpp_prompt.jsonl', env: 'code_exec', split: 'prompt', source: 'MBPP (prompt, task ids 1-10)', license: 'CC-BY-4.0' },
  { file: 'squad_qa_train.jsonl', env: 'search_qa', split: 'train', source: 'SQuAD v1.1 (dev, 80% of articles)', license: 'CC-BY-SA-4.0' },
  { file: 'squad_qa_eval.jsonl', env: 'search_qa', split: 'eval', source: 'SQuAD v1.1 (dev, 20% of articles)', license: 'CC-BY-SA-4.0' },
];

/** Settings of the SQuAD article split (changing them changes the shipped files). */
export const SQUAD_SPLIT = { evalFraction: 0.2, seed: 2016 } as const;
