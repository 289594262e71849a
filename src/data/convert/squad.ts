// SQuAD corpus questions (datasets/squad_corpus_questions.jsonl, built by
// scripts/build-squad-corpus.ts) -> search_qa tasks, split into train/eval by article so no
// article's paragraphs feed both sides. Used by scripts/convert-datasets.ts; tested by
// tests/unit/data/data-convert.test.ts.
import { requireJsonlObjects } from '../jsonl';
import type { SearchQaTask } from '../schemas';
import { splitByGroup } from '../sampling';

/** The article of a corpus document id (`Super_Bowl_50#3` -> `Super_Bowl_50`). */
export function articleOf(docId: string): string {
  const at = docId.lastIndexOf('#');
  return at < 0 ? docId : docId.slice(0, at);
}

export interface SquadSplitOptions {
  /** Share of the articles held out for eval. */
  evalFraction: number;
  seed: number;
}

export function convertSquadQuestions(jsonl: string, opts: SquadSplitOptions): { train: SearchQaTask[]; eval: SearchQaTask[] } {
  const all: SearchQaTask[] = [];
  for (const { value } of requireJsonlObjects(jsonl, 'squad questions')) {
    const q = value as { id: string; question: string; answers: string[]; doc_id: string };
    all.push({
      task_id: `squad/${q.id}`,
      question: q.question.trim(),
      answers: q.answers,
      gold_doc_id: q.doc_id,
      metadata: { source: 'squad-v1.1-dev', article: articleOf(q.doc_id) },
    });
  }
  const { train, eval: held } = splitByGroup(all, opts.evalFraction, opts.seed, (t) => articleOf(t.gold_doc_id ?? ''));
  const tag = (ts: SearchQaTask[], split: string) => ts.map((t) => ({ ...t, metadata: { ...t.metadata, split } }));
  return { train: tag(train, 'train'), eval: tag(held, 'eval') };
}
