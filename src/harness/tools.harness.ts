// Harness functions for the agent's tools in a real browser: the Pyodide sandbox pool (runs,
// episodes, stats), the escape probes, the BM25 corpus shipped with the build, the registry's
// Qwen rendering, and the page's proxy client. Used by tests/e2e/tools.spec.ts.
import type { Harness } from './types';
import { createBrowserPythonPool, pyodideBaseUrl } from '../tools/python/browser-pool';
import { SNAPSHOT_CACHE, snapshotCacheKey } from '../tools/python/browser-snapshot-cache';
import { forgetKeptSnapshots } from '../tools/python/snapshot-store';
import type { PythonPool } from '../tools/python/pool';
import type { PoolConfig, RunOptions } from '../tools/python/types';
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
  // Workers start from a Pyodide snapshot, made first when none is stored (`snapshot: true`; the
  // browser's default makes it only once a worker is replaced): the escape and leak tests run on
  // restored interpreters.
  pool ??= createBrowserPythonPool({ workers: 2, timeoutMs: 5000, maxMemoryBytes: 256 * 1024 * 1024, maxOutputBytes: 4096, startTimeoutMs: 240_000, snapshot: true });
  return pool;
}

function getCorpus(): Promise<CorpusSearch> {
  corpus ??= fetch(corpusUrl).then((r) => r.text()).then((t) => new CorpusSearch(parseCorpusJsonl(t)));
  return corpus;
}

/** The snapshot entries in Cache Storage: key, size and SHA-256 (hex), and the key this page's pools use. */
async function snapshotCache() {
  const cache = await caches.open(SNAPSHOT_CACHE);
  const entries = [];
  for (const req of await cache.keys()) {
    const bytes = await (await cache.match(req))!.arrayBuffer();
    const digest = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
    entries.push({ key: req.url, bytes: bytes.byteLength, digest });
  }
  return { entries, key: snapshotCacheKey(pyodideBaseUrl()) };
}

/**
 * A new one-worker pool as a page's first pool would start it (`snapshot`: from a snapshot, or
 * loading Pyodide); `forget` drops the image this page keeps in memory first, so a snapshot comes
 * from Cache Storage or a maker. The time until the worker is ready, its start, and the pool's stats.
 */
async function startPool(snapshot: PoolConfig['snapshot'], forget: boolean) {
  if (forget) forgetKeptSnapshots();
  const p = createBrowserPythonPool({ workers: 1, timeoutMs: 5000, maxMemoryBytes: 256 * 1024 * 1024, startTimeoutMs: 240_000, snapshot });
  const t0 = performance.now();
  try {
    const [info] = await p.ready();
    const ms = performance.now() - t0;
    const run = await p.run('print(6 * 7)');
    return { ms, startMs: info.startMs, fromSnapshot: info.fromSnapshot, stats: p.stats(), stdout: run.stdout };
  } finally {
    await p.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The browser's default pool (lazy snapshot) in a page that keeps no image and finds none stored:
 * its worker loads Pyodide; a run that times out replaces it, which has the image made in the
 * background and saved; the next replacement starts from it. What the pool and the cache showed at
 * each point.
 */
async function lazyPool() {
  forgetKeptSnapshots();
  const p = createBrowserPythonPool({ workers: 1, timeoutMs: 5000, maxMemoryBytes: 256 * 1024 * 1024, startTimeoutMs: 240_000 });
  const entries = async () => (await snapshotCache()).entries.length;
  try {
    const [info] = await p.ready();
    const atStart = { fromSnapshot: info.fromSnapshot, entries: await entries(), stats: p.stats() };
    // time.sleep never sees the interrupt: the worker is ended and replaced (a loop would be interrupted).
    const stuck = 'import time\ntime.sleep(30)';
    const timedOut = (await p.run(stuck, { timeoutMs: 300 })).errorType;
    const t0 = performance.now();
    while ((await entries()) === 0 && performance.now() - t0 < 240_000) await sleep(250);
    const madeMs = performance.now() - t0;
    const afterMake = { entries: await entries(), stats: p.stats() };
    await p.run(stuck, { timeoutMs: 300 });
    const t1 = performance.now();
    while ((p.stats().respawns < 2 || p.stats().idle < 1) && performance.now() - t1 < 240_000) await sleep(100);
    const run = await p.run('print(6 * 7)');
    return { atStart, timedOut, madeMs, afterMake, final: p.stats(), stdout: run.stdout };
  } finally {
    await p.close();
  }
}

export function register(h: Harness): void {
  h.toolsLazyPool = lazyPool;
  h.toolsSnapshotCache = snapshotCache;
  h.toolsStartPool = startPool;
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
