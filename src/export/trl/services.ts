// The services an environment is built with while exporting a bundle: the real corpus search
// (search_qa), and for Python a runner that refuses to run anything. Exporting only asks the
// environment for its prompts, tool schemas and weights; nothing is graded or executed, so no
// Pyodide pool is started. Used by the export-trl command; exercised by export-trl-bundle.test.ts.
import type { EnvServices } from '../../envs';
import type { TestsResult, RunResult } from '../../tools/python/types';
import { CorpusSearch, parseCorpusJsonl } from '../../tools/search/corpus';

const refuse = (what: string): Promise<never> =>
  Promise.reject(new Error(`export-trl builds prompts and tool schemas only; it does not ${what} (use \`train\` or \`eval\`)`));

export function exportServices(corpus: { text: string; file: string } | null): EnvServices {
  const services: EnvServices = {
    python: {
      run: (): Promise<RunResult> => refuse('run Python'),
      runTests: (): Promise<TestsResult> => refuse('grade code'),
      endEpisode: () => Promise.resolve(),
    },
  };
  if (corpus) services.search = new CorpusSearch(parseCorpusJsonl(corpus.text, corpus.file));
  return services;
}
