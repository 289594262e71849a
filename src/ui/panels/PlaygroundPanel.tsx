// Playground panel: pick a model and an adapter kept in the browser (a run's adapter/), set the
// decoding (temperature, seed, tokens, turns), send a prompt; the replies stream in, base and
// adapter side by side on the same prompt and seed, with every tool call's JSON and response.
// The Config panel's config gives the tools. "Score text" (playground/ScoreText.tsx) gives a text's
// per-token log-probs for base and adapter. Tested by tests/e2e/studio-playground.spec.ts.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useStudio } from '../../store/store';
import type { ChatSettings } from '../../rl/chat-agent';
import { PlayColumnView } from '../playground/PlayColumnView';
import { ScoreText } from '../playground/ScoreText';

const FIELDS: { key: keyof ChatSettings; label: string; min: number; max: number; step: number }[] = [
  { key: 'temperature', label: 'Temperature (0 = greedy)', min: 0, max: 2, step: 0.1 },
  { key: 'seed', label: 'Seed', min: 0, max: 2 ** 31 - 1, step: 1 },
  { key: 'maxNewTokens', label: 'Max new tokens per turn', min: 1, max: 1024, step: 1 },
  { key: 'maxTurns', label: 'Max turns', min: 1, max: 8, step: 1 },
];

export function PlaygroundPanel() {
  const models = useStudio((s) => s.models);
  const selected = useStudio((s) => s.selectedModel);
  const selectModel = useStudio((s) => s.selectModel);
  const load = useStudio((s) => s.modelLoad);
  const runs = useStudio((s) => s.adapterRuns);
  const runsError = useStudio((s) => s.adapterRunsError);
  const adapter = useStudio((s) => s.playAdapter);
  const settings = useStudio((s) => s.playSettings);
  const prompt = useStudio((s) => s.playPrompt);
  const columns = useStudio((s) => s.playColumns);
  const error = useStudio((s) => s.playError);
  const check = useStudio((s) => s.configCheck);
  const refresh = useStudio((s) => s.refreshAdapterRuns);
  const setAdapter = useStudio((s) => s.setPlayAdapter);
  const setSetting = useStudio((s) => s.setPlaySetting);
  const send = useStudio((s) => s.sendPrompt);
  const [text, setText] = useState('Eva has 12 shelves of 30 coins and finds 5 more. How many coins does Eva have in total?');
  const ids = { model: useId(), adapter: useId(), prompt: useId(), field: useId() };
  const running = columns.some((c) => c.running);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim() && !running) void send(text.trim());
  };
  const tools = check.ok ? `${check.config.data.env} environment` : 'the config is invalid';

  return (
    <section className="panel" data-testid="playground-panel">
      <h1>Playground</h1>
      <div className="card wide">
        <div className="play-setup">
          <div className="form-row">
            <label htmlFor={ids.model}>Model</label>
            <select id={ids.model} value={selected} onChange={(e) => selectModel(e.target.value)} data-testid="play-model">
              {models.map((m) => <option key={m.name} value={m.name}>{m.name}</option>)}
            </select>
          </div>
          <div className="form-row span2">
            <label htmlFor={ids.adapter}>Adapter (a run kept in this browser)</label>
            <select id={ids.adapter} value={adapter} onChange={(e) => setAdapter(e.target.value)} data-testid="play-adapter">
              <option value="">none: base only</option>
              {(runs ?? []).map((r) => <option key={r.runId} value={r.runId}>{r.runId}{r.model ? ` (${r.model.split('/').pop()})` : ''}</option>)}
            </select>
            <button type="button" onClick={() => void refresh()} data-testid="play-refresh">Refresh runs</button>
          </div>
          {FIELDS.map((f) => (
            <div className="form-row" key={f.key}>
              <label htmlFor={`${ids.field}-${f.key}`}>{f.label}</label>
              <input id={`${ids.field}-${f.key}`} className="narrow" type="number" min={f.min} max={f.max} step={f.step} value={settings[f.key]}
                onChange={(e) => {
                  const v = Number(e.target.value);
                  if (e.target.value !== '' && Number.isFinite(v)) setSetting(f.key, Math.min(f.max, Math.max(f.min, v)));
                }} data-testid={`play-${f.key}`} />
            </div>
          ))}
        </div>
        <p className="small">Tools and system prompt: the Config panel&apos;s config ({tools}). The tools run in the engine worker
          (Python in a sandboxed Pyodide worker, search over the shipped corpus). {runs && !runs.length && 'No run with an adapter in this browser yet: a finished run writes one.'}</p>
        {runsError && <p className="error" role="alert">{runsError}</p>}
        <form onSubmit={onSubmit} className="play-form">
          <label htmlFor={ids.prompt}>Prompt</label>
          <textarea id={ids.prompt} rows={3} value={text} onChange={(e) => setText(e.target.value)} data-testid="play-prompt"
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) onSubmit(e);
            }} />
          <button type="submit" className="primary" disabled={running || !text.trim()} data-testid="play-send">
            {running ? 'Generating...' : adapter ? 'Send to base and adapter' : 'Send'}
          </button>
          <span className="small">Ctrl+Enter sends. Same prompt, settings and seed for both.</span>
        </form>
        {load && load.done < load.total && <p className="small" role="status">Loading {load.name}: {load.done}/{load.total} {load.stage}</p>}
        {error && <p className="error" role="alert" data-testid="play-panel-error">{error}</p>}
      </div>
      {prompt !== null && (
        <>
          <p className="play-prompt-shown"><span className="role role-user">user</span> {prompt}</p>
          <div className="play-cols">
            {columns.map((c) => <PlayColumnView key={c.adapter ?? 'base'} column={c} model={selected} />)}
          </div>
        </>
      )}
      <ScoreText />
    </section>
  );
}
