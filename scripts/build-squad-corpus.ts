// Builds the offline search corpus from SQuAD v1.1 dev: one paragraph per line in
// datasets/squad_corpus.jsonl ({"id","title","text"}) and every question with its gold
// paragraph in datasets/squad_corpus_questions.jsonl ({"id","question","answers","doc_id"}).
// Run: npx tsx scripts/build-squad-corpus.ts [path/to/dev-v1.1.json]  (default: ../shared/datasets)
import { readFileSync, writeFileSync } from 'node:fs';

interface Squad {
  version: string;
  data: { title: string; paragraphs: { context: string; qas: { id: string; question: string; answers: { text: string }[] }[] }[] }[];
}

const src = process.argv[2] ?? '../shared/datasets/squad_v1.1_dev/dev-v1.1.json';
const squad = JSON.parse(readFileSync(src, 'utf8')) as Squad;
const docs: string[] = [];
const questions: string[] = [];
for (const article of squad.data) {
  const title = article.title.replace(/_/g, ' ');
  article.paragraphs.forEach((p, i) => {
    const id = `${article.title}#${i}`;
    docs.push(JSON.stringify({ id, title, text: p.context }));
    for (const q of p.qas) {
      const answers = [...new Set(q.answers.map((a) => a.text))];
      questions.push(JSON.stringify({ id: q.id, question: q.question, answers, doc_id: id }));
    }
  });
}
writeFileSync('datasets/squad_corpus.jsonl', docs.join('\n') + '\n');
writeFileSync('datasets/squad_corpus_questions.jsonl', questions.join('\n') + '\n');
console.log(`SQuAD ${squad.version}: ${squad.data.length} articles, ${docs.length} paragraphs, ${questions.length} questions -> datasets/squad_corpus*.jsonl`);
