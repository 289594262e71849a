// Services for building an environment only to read its prompts and tool schemas (the TRL export,
// the Datasets panel's token preview): a Python runner and a search backend that refuse every call
// with a message naming who asked and what to use instead, so no Pyodide pool or corpus is loaded.
// Exercised by tests/unit/rl/first-turn.test.ts and tests/unit/export/export-trl-bundle.test.ts.
import type { TestsResult, RunResult } from '../tools/python/types';
import type { SearchResult } from '../tools/search/types';
import type { EnvServices } from './index';

/** `who` builds prompts only; `instead` says what runs tools (e.g. "use `train` or `eval`"). */
export function promptOnlyServices(who: string, instead: string): Required<EnvServices> {
  const refuse = (what: string): Promise<never> => Promise.reject(new Error(`${who} builds prompts and tool schemas only; it does not ${what} (${instead})`));
  return {
    python: {
      run: (): Promise<RunResult> => refuse('run Python'),
      runTests: (): Promise<TestsResult> => refuse('grade code'),
      endEpisode: () => Promise.resolve(),
    },
    search: { name: 'none (prompts only)', search: (): Promise<SearchResult[]> => refuse('search') },
  };
}
