// One previewed task: the opening messages the environment gives the model (role and text), or
// the task's fields when those messages need a service; always the line it came from; and, once
// the selected model's tokenizer has made them, the tokens the model reads (one box per token).
// Exercised by tests/e2e/studio-datasets.spec.ts and tests/e2e/studio-drop-flow.spec.ts.
import type { TaskPreview } from './analyse';
import type { TokenPreview } from '../../workers/engine/preview-tokens';
import '../run/run.css';

export function TaskPreviewCard({ p, tokens, model }: { p: TaskPreview; tokens?: TokenPreview; model?: string }) {
  return (
    <article className="preview" data-testid="task-preview" aria-label={`Task ${p.taskId} (line ${p.line})`}>
      <h3>{p.taskId} <span className="small">line {p.line}</span></h3>
      {p.messages ? (
        <ol className="messages">
          {p.messages.map((m, i) => (
            <li key={i}><span className={`role role-${m.role}`}>{m.role}</span><pre>{m.content}</pre></li>
          ))}
        </ol>
      ) : (
        <dl>
          {Object.entries(p.fields).filter(([k]) => k !== 'metadata').map(([k, v]) => (
            <div key={k} className="field"><dt>{k}</dt><dd><pre>{typeof v === 'string' ? v : JSON.stringify(v, null, 1)}</pre></dd></div>
          ))}
        </dl>
      )}
      {tokens && (
        <details className="preview-tokens" data-testid="preview-tokens" data-count={tokens.ids.length}>
          <summary>{tokens.ids.length} tokens for {model}</summary>
          <div className="token-seq">
            {tokens.pieces.map((t, i) => <span key={i} className={i % 2 ? 'tok tok-alt' : 'tok tok-prompt'} title={`token ${tokens.ids[i]}`}>{t}</span>)}
          </div>
        </details>
      )}
    </article>
  );
}
