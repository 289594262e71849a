// Tools & search panel: the Python sandbox's limits (the pool's defaults), the search mode
// (offline BM25 corpus or the web through the proxy), the proxy URL, and a test query against the
// real backend. API keys are never asked for here. Tested by tests/e2e/studio-tools.spec.ts.
import { useId, useState, type FormEvent } from 'react';
import { useStudio } from '../../store/store';
import { CORPUS_FILE } from '../../store/tools-slice';
import { defaultPoolConfig } from '../../tools/python/types';
import { formatBytes } from '../../gpu/errors';
import { SnapshotRow } from '../tools/SnapshotRow';

export function ToolsPanel() {
  const mode = useStudio((s) => s.searchMode);
  const proxyUrl = useStudio((s) => s.proxyUrl);
  const test = useStudio((s) => s.searchTest);
  const setMode = useStudio((s) => s.setSearchMode);
  const setProxyUrl = useStudio((s) => s.setProxyUrl);
  const testSearch = useStudio((s) => s.testSearch);
  const [query, setQuery] = useState('Super Bowl 50');
  const ids = { url: useId(), query: useId() };
  const c = defaultPoolConfig;
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void testSearch(query);
  };

  return (
    <section className="panel" data-testid="tools-panel">
      <h1>Tools &amp; search</h1>
      <div className="cards">
        <div className="card">
          <h2>Python sandbox (code_exec, python tool)</h2>
          <dl data-testid="sandbox-limits">
            <dt>Runtime</dt><dd>Pyodide (Python, stdlib only) in dedicated Web Workers</dd>
            <SnapshotRow />
            <dt>Workers</dt><dd>{c.workers} warm</dd>
            <dt>Time per run</dt><dd>{(c.timeoutMs / 1000).toFixed(0)} s (then interrupted; after {c.interruptGraceMs} ms the worker is restarted)</dd>
            <dt>Output per run</dt><dd>{formatBytes(c.maxOutputBytes)} (stdout + stderr)</dd>
            <dt>Memory</dt><dd>{formatBytes(c.maxMemoryBytes)} wasm heap (MemoryError past it)</dd>
            <dt>Recursion limit</dt><dd>at most {c.maxRecursionLimit}</dd>
            <dt>Network</dt><dd>none: the worker&apos;s Content-Security-Policy allows only Pyodide&apos;s own files</dd>
          </dl>
        </div>
        <div className="card">
          <h2>Search</h2>
          <fieldset className="radios">
            <legend>Mode</legend>
            <label><input type="radio" name="search-mode" value="corpus" checked={mode === 'corpus'} onChange={() => setMode('corpus')} />
              {' '}Offline corpus (BM25 over datasets/{CORPUS_FILE}, no network)</label>
            <label><input type="radio" name="search-mode" value="proxy" checked={mode === 'proxy'} onChange={() => setMode('proxy')} />
              {' '}Web, through the search proxy</label>
          </fieldset>
          {mode === 'proxy' && (
            <div className="form-row">
              <label htmlFor={ids.url}>Proxy URL</label>
              <input id={ids.url} type="text" value={proxyUrl} onChange={(e) => setProxyUrl(e.target.value)} data-testid="proxy-url" />
              <span className="small">The provider&apos;s API key is set where the proxy runs (e.g. <code>TAVILY_API_KEY</code> in its
                environment). The page never asks for a key and never stores one.</span>
            </div>
          )}
        </div>
      </div>
      <div className="card wide">
        <h2>Test query</h2>
        <form onSubmit={onSubmit} className="inline-form">
          <label htmlFor={ids.query}>Query</label>
          <input id={ids.query} type="search" value={query} onChange={(e) => setQuery(e.target.value)} data-testid="search-query" />
          <button type="submit" disabled={test.running} data-testid="search-run">{test.running ? 'Searching...' : 'Search'}</button>
        </form>
        {test.error && <p className="error" role="alert" data-testid="search-error">{test.error}</p>}
        {test.results && (
          <div data-testid="search-results">
            <p className="small">{test.results.length} results from {test.backend} in {test.ms.toFixed(0)} ms (the first query of the corpus also downloads and indexes it).</p>
            <ol className="results">
              {test.results.map((r) => <li key={r.url}><strong>{r.title}</strong> <span className="small">{r.url}</span><p>{r.snippet}</p></li>)}
            </ol>
          </div>
        )}
      </div>
    </section>
  );
}
