// Beside the Datasets panel's token previews: the colour legend (what the loss trains on), for task
// files the tools a run's prompt lists (or why none are), for SFT files the SFT loader's verdict on
// every line at the run's max length (kept whole, truncated, skipped, with the first reasons).
// Exercised by tests/e2e/studio-drop-flow.spec.ts.
import type { DatasetTokenPreview } from '../../workers/engine/preview-tokens';
import type { RlConfig } from '../../rl/config-validate';
import type { SftCheckState } from '../../store/datasets-slice';

const REASONS = 5;

export function TokenLegend({ sft }: { sft: boolean }) {
  return (
    <p className="small token-legend" data-testid="preview-legend">
      {sft ? <>
        <span className="tok tok-prompt">context (mask 0): system, user and tool turns, role headers</span>{' '}
        <span className="tok tok-policy">trained (mask 1): each assistant turn, its tool calls and end token</span>.
        Exactly the SFT loader&apos;s tokens and mask.
      </> : <>
        <span className="tok tok-prompt">context (mask 0): the whole prompt, tool list and rollout.prefill</span>.
        Nothing is trained before generation: during a run only the tokens the model writes get mask 1.
      </>}
    </p>
  );
}

export function PreviewToolsLine({ preview, template }: { preview: DatasetTokenPreview; template: RlConfig['model']['template'] | null }) {
  const t = preview.tools;
  if (!t) return null;
  const names = t.names.join(', ');
  return (
    <p className="small" data-testid="preview-tools" data-tools={names} data-listed={t.listed ? 'yes' : 'no'}>
      {!t.names.length ? 'No tools: this environment offers none with these settings (e.g. math without env.python_tool), so the prompt lists none.'
        : t.listed ? <>Tools listed in the system turn: <strong>{names}</strong> (the environment&apos;s and the config&apos;s tools, as a run offers them).</>
          : <>Tools <strong>{names}</strong> are offered but not listed: model.template is {template ?? 'plain_no_tools'}.</>}
    </p>
  );
}

export function SftCheckCard({ state }: { state: SftCheckState }) {
  if (!state) return null;
  if (state.status === 'checking') return <div className="card wide" data-testid="sft-check"><p role="status">The SFT loader is reading every line at the run&apos;s max length...</p></div>;
  if (state.status === 'error') return <div className="card wide" data-testid="sft-check"><p className="error" role="alert">{state.message}</p></div>;
  const c = state.check;
  const whole = c.examples - c.truncated;
  return (
    <div className="card wide" data-testid="sft-check" data-truncated={c.truncated} data-skipped={c.skipped.length} data-max-length={c.maxLength}>
      <h2>SFT loader check at {c.maxLength} tokens</h2>
      <p>{c.lines.toLocaleString()} lines: {whole.toLocaleString()} fit, <strong>{c.truncated.toLocaleString()} longer than {c.maxLength} tokens,
        truncated</strong> to their first {c.maxLength} (the SFT loader keeps them, cut), {c.skipped.length.toLocaleString()} skipped.
        {' '}{c.tokens.toLocaleString()} tokens kept, {c.trainedTokens.toLocaleString()} trained.</p>
      <p className="small">The max length is {c.maxLengthFrom === 'data.max_length' ? 'data.max_length in the config' : c.maxLengthFrom} (set data.max_length to change it).
        A line whose first {c.maxLength} tokens hold no assistant token is skipped, not truncated.</p>
      {c.skipped.length > 0 && (
        <ul className="small" aria-label="Skipped SFT lines">
          {c.skipped.slice(0, REASONS).map((s) => <li key={s.line}>{s.reason}</li>)}
          {c.skipped.length > REASONS && <li>... and {(c.skipped.length - REASONS).toLocaleString()} more</li>}
        </ul>
      )}
    </div>
  );
}
