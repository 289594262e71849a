// One reply column of the Playground: its header (base or the adapter's run), each assistant turn
// as it streams, each tool call's JSON with the response the model read, and how the reply ended.
// Rendered by src/ui/panels/PlaygroundPanel.tsx; tested by tests/e2e/studio-playground.spec.ts.
import type { PlayColumn } from '../../store/playground-slice';

const ENDINGS: Record<string, string> = {
  answer: 'answered',
  max_turns: 'stopped at the turn limit (raise Max turns)',
  max_tokens: 'cut at the token limit (raise Max new tokens)',
  error: 'ended with an error',
};

export function PlayColumnView({ column, model }: { column: PlayColumn; model: string }) {
  const id = column.adapter ? 'adapter' : 'base';
  return (
    <section className="play-col" aria-label={column.adapter ? `Reply with adapter ${column.adapter}` : 'Reply of the base model'} data-testid={`play-col-${id}`}>
      <h2>{column.adapter ? <>Adapter: <code>{column.adapter}</code></> : <>Base: <code>{model}</code></>}</h2>
      <ol className="play-items" aria-live="polite">
        {column.items.map((it, i) => it.kind === 'turn'
          ? <li key={i} className="play-turn" data-testid="play-turn"><span className="role role-assistant">assistant</span><pre>{it.text || ' '}</pre></li>
          : (
            <li key={i} className={it.ok ? 'play-tool' : 'play-tool failed'} data-testid="play-tool">
              <span className="role">tool call {it.ok ? `(ran in ${it.latencyMs.toFixed(0)} ms)` : `(failed${it.error ? `: ${it.error}` : ''})`}</span>
              <pre data-testid="play-tool-call">{JSON.stringify({ name: it.name, arguments: it.args })}</pre>
              <span className="role">{it.name || 'tool'} response</span>
              <pre data-testid="play-tool-result">{it.text}</pre>
            </li>
          ))}
      </ol>
      {column.running && <p className="small" role="status">Generating...</p>}
      {column.finishReason && <p className="small" data-testid="play-finish">Finished: {ENDINGS[column.finishReason] ?? column.finishReason}</p>}
      {column.error && <p className="error" role="alert" data-testid="play-error">{column.error}</p>}
    </section>
  );
}
