// The Playground's "Score text" box: paste a text, get the log-probability of each token after the
// first under the base model and the picked adapter (the figures `npm run cli -- logprobs` writes),
// each token shaded by its log-prob with the exact figure on hover and in a table, the sum, and the
// figures as JSON (copy button and data-logprobs). Rendered by PlaygroundPanel; tested by
// tests/e2e/studio-first-run.spec.ts.
import { useId, useState, type FormEvent } from 'react';
import { useStudio } from '../../store/store';
import type { ScoreColumn } from '../../store/score-slice';
import '../run/run.css';

/** Background for a log-prob: white near 0, deeper red as the token gets less likely (floor -8). */
const shade = (lp: number): string => `hsl(0 80% ${Math.round(97 - Math.min(1, -lp / 8) * 22)}%)`;

const asJson = (c: ScoreColumn): string => JSON.stringify({ adapter: c.adapter, ids: c.ids, logprobs: c.logprobs });

function ScoreColumnView({ column, model }: { column: ScoreColumn; model: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const id = column.adapter ? 'adapter' : 'base';
  const sum = column.logprobs.reduce((a, b) => a + b, 0);
  const copy = () => {
    navigator.clipboard.writeText(asJson(column)).then(() => setCopied('Copied.'), (e: unknown) => setCopied(`Copy failed: ${(e as Error).message}; select the table instead.`));
  };
  return (
    <section className="play-col" aria-label={column.adapter ? `Scores with adapter ${column.adapter}` : 'Scores of the base model'}
      data-testid={`score-col-${id}`} data-logprobs={column.error ? undefined : JSON.stringify(column.logprobs)}>
      <h2>{column.adapter ? <>Adapter: <code>{column.adapter}</code></> : <>Base: <code>{model}</code></>}</h2>
      {column.error ? <p className="error" role="alert" data-testid="score-error">{column.error}</p> : (
        <>
          <p data-testid="score-sum">Sum of {column.logprobs.length} log-probs: <strong>{sum.toFixed(4)}</strong> (mean {(sum / Math.max(1, column.logprobs.length)).toFixed(4)})</p>
          <div className="token-seq" data-testid="score-tokens">
            {column.pieces.map((p, i) => i === 0
              ? <span key={i} className="tok tok-prompt" title={`token ${column.ids[0]}: first token, not scored`}>{p}</span>
              : <span key={i} className="tok" style={{ background: shade(column.logprobs[i - 1]) }} title={`token ${column.ids[i]}: log-prob ${column.logprobs[i - 1].toFixed(4)}`}>{p}</span>)}
          </div>
          <div className="button-row">
            <button type="button" onClick={copy} data-testid={`score-copy-${id}`}>Copy as JSON</button>
            {copied && <span className="small" role="status">{copied}</span>}
          </div>
          <details>
            <summary>Every token&apos;s log-prob</summary>
            <table className="kv score-table">
              <thead><tr><th>#</th><th>token</th><th>id</th><th>log-prob</th></tr></thead>
              <tbody>{column.ids.slice(1).map((t, i) => (
                <tr key={i}><td>{i + 1}</td><td><code>{JSON.stringify(column.pieces[i + 1])}</code></td><td>{t}</td><td>{column.logprobs[i].toFixed(4)}</td></tr>
              ))}</tbody>
            </table>
          </details>
        </>
      )}
    </section>
  );
}

export function ScoreText() {
  const columns = useStudio((s) => s.scoreColumns);
  const scoring = useStudio((s) => s.scoring);
  const error = useStudio((s) => s.scoreError);
  const adapter = useStudio((s) => s.playAdapter);
  const model = useStudio((s) => s.selectedModel);
  const score = useStudio((s) => s.scoreText);
  const [text, setText] = useState('The answer is 42.');
  const textId = useId();
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (text && !scoring) void score(text);
  };
  return (
    <div className="card wide" data-testid="score-text">
      <h2>Score text</h2>
      <p className="small">The log-probability of each token after the first, as <code>npm run cli -- logprobs</code> computes it
        (the tokenizer&apos;s special tokens included), under the base model{adapter ? ' and the picked adapter' : ''}. Hover a token for its figure.</p>
      <form onSubmit={onSubmit} className="play-form">
        <label htmlFor={textId}>Text to score</label>
        <textarea id={textId} rows={4} value={text} onChange={(e) => setText(e.target.value)} data-testid="score-input" />
        <button type="submit" disabled={scoring || !text} data-testid="score-run">{scoring ? 'Scoring...' : adapter ? 'Score with base and adapter' : 'Score'}</button>
      </form>
      {error && <p className="error" role="alert" data-testid="score-panel-error">{error}</p>}
      {columns.length > 0 && <div className="play-cols">{columns.map((c) => <ScoreColumnView key={c.adapter ?? 'base'} column={c} model={model} />)}</div>}
    </div>
  );
}
