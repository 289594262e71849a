// URLs of the task files shipped in datasets/ (built into the app as assets, fetched only when
// picked), keyed by file name; which env and split each is comes from src/data/shipped.ts.
// Used by DatasetsPanel and the Tools panel's corpus search.
const urls = import.meta.glob(['../../../datasets/*.jsonl', '!**/squad_corpus_questions.jsonl'], { query: '?url', import: 'default', eager: true }) as Record<string, string>;

export function shippedUrl(file: string): string | null {
  return urls[`../../../datasets/${file}`] ?? null;
}

/** The file's text, or an error naming it and what to do. */
export async function fetchShipped(file: string): Promise<Blob> {
  const url = shippedUrl(file);
  if (!url) throw new Error(`datasets/${file}: not part of this build; rebuild the studio (npm run build)`);
  const res = await fetch(url);
  if (!res.ok) throw new Error(`datasets/${file}: the server answered ${res.status}; restart npm start and reload`);
  return res.blob();
}
