// One previewed task: the opening messages the environment gives the model (role and text), or
// the task's fields when those messages need a service; always the line it came from.
import type { TaskPreview } from './analyse';

export function TaskPreviewCard({ p }: { p: TaskPreview }) {
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
    </article>
  );
}
