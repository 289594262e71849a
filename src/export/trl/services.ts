// The services an environment is built with while exporting a bundle: the real corpus search
// (search_qa), and for Python a runner that refuses to run anything. Exporting only asks the
// environment for its prompts, tool schemas and weights; nothing is graded or executed, so no
// Pyodide pool is started. Used by the export-trl command; exercised by export-trl-bundle.test.ts.
import type { EnvServices } from '../../envs';
import { promptOnlyServices } from '../../envs/prompt-services';
import { CorpusSearch, parseCorpusJsonl } from '../../tools/search/corpus';

export function exportServices(corpus: { text: string; file: string } | null): EnvServices {
  const services: EnvServices = { python: promptOnlyServices('export-trl', 'use `train` or `eval`').python };
  if (corpus) services.search = new CorpusSearch(parseCorpusJsonl(corpus.text, corpus.file));
  return services;
}
