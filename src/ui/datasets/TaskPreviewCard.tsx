// One previewed line: the opening messages the environment gives the model (role and text), an SFT
// line's messages, or the task's fields; always the line it came from; and, once the selected
// model's tokenizer has made them, the tokens the model reads (one box per token, green where the
// loss trains on it: an SFT line's assistant turns; a task's prompt is all context).
// Exercised by tests/e2e/studio-datasets.spec.ts and tests/e2e/studio-drop-flow.spec.ts.
import type { TaskPreview } from './analyse';
import type { TokenPreview } from '../../workers/engine/preview-tokens';
import { MessageList } from '../common/MessageList';
import '../run/run.css';

export function TaskPreviewCard({ p, tokens, model }: { p: TaskPreview; tokens?: TokenPreview; model?: string }) {
  const trained = tokens ? tokens.trained.reduce((a, b) => a + b, 0) : 0;
  return (
    <article className="preview" data-testid="task-preview" aria-label={`Task ${p.taskId} (line ${p.line})`}>
      <h3>{p.taskId} <span className="small">line {p.line}</span></h3>
      {p.messages ? (
        <MessageList messages={p.messages} />
      ) : (
        <dl>
          {Object.entries(p.fields).filter(([k]) => k !== 'metadata').map(([k, v]) => (
            <div key={k} className="field"><dt>{k}</dt><dd><pre>{typeof v === 'string' ? v : JSON.stringify(v, null, 1)}</pre></dd></div>
          ))}
        </dl>
      )}
      {tokens && (
        <details className="preview-tokens" data-testid="preview-tokens" data-count={tokens.ids.length} data-trained={trained} open>
          <summary>{tokens.truncated ? `${tokens.length} tokens, truncated to ${tokens.ids.length}` : `${tokens.ids.length} tokens`} for {model}: {trained} trained
            {tokens.prefillLength > 0 && `, the last ${tokens.prefillLength} forced by rollout.prefill`}</summary>
          <div className="token-seq" tabIndex={0} role="group" aria-label={`Tokens of line ${p.line}`}>
            {tokens.pieces.map((t, i) => (
              <span key={i} className={`tok ${tokens.trained[i] ? 'tok-policy' : 'tok-prompt'}${i % 2 ? ' tok-b' : ''}`} data-trained={tokens.trained[i]}
                title={`token ${tokens.ids[i]}${tokens.trained[i] ? ', trained' : ', context'}`}>{t}</span>
            ))}
          </div>
        </details>
      )}
    </article>
  );
}
