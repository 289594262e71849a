// Harness functions for the agent's tools in a real browser: the Pyodide sandbox pool (runs,
// episodes, stats), the escape probes, the BM25 corpus shipped with the build, the registry's
// Qwen rendering, and the page's proxy client. Used by tests/e2e/tools.spec.ts.
import type { Harness } from './types';
import { createBrowserPythonPool } from '../tools/python/browser-pool';
import type { PythonPool } from '../tools/python/pool';
import type { RunOptions } from '../tools/python/types';
import { CorpusSearch, parseCorpusJsonl } from '../tools/search/corpus';
import { ProxyClient } from '../tools/proxy-client';
import { ToolRegistry } from '../tools/registry';
import { pythonTool } from '../tools/python-tool';
import { searchTool } from '../tools/search-tool';
import corpusUrl from '../../datasets/squad_corpus.jsonl?url';

let pool: PythonPool | undefined;
let corpus: Promise<CorpusSearch> | undefined;

function getPool(): PythonPool {
  // A generous start budget: on a loaded shared machine Pyodide can take minutes to start.
  // Workers from a Pyodide snapshot (off by default in the browser): the escape and leak tests
  // run on restored interpreters.
  pool ??= createBrowserPythonPool({ workers: 2, timeoutMs: 5000, maxMemoryBytes: 256 * 1024 * 1024, maxOutputBytes: 4096, startTimeoutMs: 240_000, snapshot: true });
  return pool;
}

function getCorpus(): Promise<CorpusSearch> {
  corpus ??= fetch(corpusUrl).then((r) => r.text()).then((t) => new CorpusSearch(parseCorpusJsonl(t)));
  return corpus;
}

export function register(h: Harness): void {
  h.toolsPythonReady = async () => ({ info: await getPool().ready(), isolated: crossOriginIsolated });
  h.toolsPythonRun = (code: string, opts: Omit<RunOptions, 'signal'> = {}) => getPool().run(code, opts);
  h.toolsPythonEndEpisode = (episode: string) => getPool().endEpisode(episode);
  h.toolsPythonStats = async () => getPool().stats();
  h.toolsPythonTests = (code: string, tests: string[]) => getPool().runTests(code, tests);
  h.toolsCorpusSearch = async (query: string, k: number) => (await getCorpus()).search(query, k);
  h.toolsRegistry = async (episode: string) => {
    const reg = new ToolRegistry().register(searchTool(await getCorpus())).register(pythonTool(getPool()));
    const first = await reg.call('python', { code: 'total = 40 + 2' }, { episodeId: episode });
    const second = await reg.call('python', { code: 'print(total)' }, { episodeId: episode });
    const search = await reg.call('search', { query: 'Denver Broncos defeated Carolina Panthers Super Bowl 50' }, { episodeId: episode });
    await reg.endEpisode(episode);
    return { prompt: reg.renderSystemPrompt(), first, second, search };
  };
  /** The page (no CSP) fetching a canary URL: the positive control of the escape test. */
  h.toolsPageFetch = async (url: string) => (await fetch(url)).status;
  h.toolsProxySearch = async (query: string) => {
    try {
      return { ok: true, results: await new ProxyClient('/api').search(query, 3) };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  };
}
