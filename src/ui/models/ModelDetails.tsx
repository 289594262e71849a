// The Models panel's card for one model: architecture, parameters, GPU bytes with f32 and NF4 base
// weights (the engine's memory plan), context, vocabulary, files, the chat template (collapsed),
// the adapters trained on it (runs in OPFS whose config names it and that hold adapter/), a
// button loading it in the engine worker, and Remove for a user model. Exercised by tests/e2e/studio-models.spec.ts.
import { useState } from 'react';
import { formatBytes } from '../../gpu/errors';
import type { StudioModel } from '../../store/models-slice';
import { useStudio } from '../../store/store';
import type { ModelReport } from '../../workers/engine/inspect';
import { formatCount } from './format';

const QUANT_LABEL = { none: 'f32 (none)', nf4: 'NF4 (4-bit, LoRA only)' } as const;

function Facts({ r }: { r: ModelReport }) {
  const c = r.config;
  return (
    <dl data-testid="model-facts">
      <dt>Architecture</dt><dd data-testid="model-arch">{r.hfArchitecture ?? '?'}{c ? ` (${c.architecture} family)` : ''}</dd>
      <dt>Parameters</dt><dd data-testid="model-params" data-params={r.params ?? ''}>{r.params !== null ? `${formatCount(r.params)} (${r.params.toLocaleString()})` : '?'}</dd>
      {c && <>
        <dt>Shape</dt><dd>{c.numLayers} layers, hidden {c.hiddenSize}, MLP {c.intermediateSize}, {c.numHeads} heads ({c.numKvHeads} KV) of {c.headDim}</dd>
        <dt>Context</dt><dd data-testid="model-context">{c.maxPositions.toLocaleString()} tokens</dd>
        <dt>Vocabulary</dt><dd data-testid="model-vocab">{c.vocabSize.toLocaleString()} (tokenizer: {r.tokenizerVocab?.toLocaleString() ?? '?'})</dd>
        <dt>Embeddings</dt><dd>{c.tieWordEmbeddings ? 'tied (the LM head is the embedding)' : 'separate LM head'}</dd>
      </>}
      <dt>Weights on disk</dt><dd>{r.weightFileBytes !== null ? `${formatBytes(r.weightFileBytes)} (${r.dtypes.join(', ')})` : '?'}</dd>
      <dt>Folder</dt><dd>{r.source}</dd>
    </dl>
  );
}

function GpuTable({ r }: { r: ModelReport }) {
  if (!r.gpu.length) return null;
  return (
    <table className="kv gpu-bytes" data-testid="model-gpu">
      <caption className="small">Bytes on the GPU (the engine's memory plan): weights alone, and with one chat of {r.gpu[0].chatTokens} tokens</caption>
      <thead><tr><th scope="col">Base weights</th><th scope="col">Weights</th><th scope="col">With a chat</th></tr></thead>
      <tbody>
        {r.gpu.map((g) => (
          <tr key={g.quant} data-testid={`model-gpu-${g.quant}`} data-bytes={g.weightsBytes}>
            <th scope="row">{QUANT_LABEL[g.quant]}</th><td>{formatBytes(g.weightsBytes)}</td><td>{formatBytes(g.chatBytes)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Adapters({ name }: { name: string }) {
  const runs = useStudio((s) => s.runFolders);
  const mine = (runs ?? []).filter((r) => r.modelName === name && r.exported === 'adapter');
  return (
    <div data-testid="model-adapters">
      <h3>Adapters trained on it</h3>
      {runs === null ? <p className="small">Reading the runs...</p>
        : !mine.length ? <p className="small">None yet: runs kept in this browser whose config names {name} and that hold an adapter/ folder show here.</p>
        : <ul className="adapters">{mine.map((r) => (
            <li key={r.runId}><code>{r.runId}</code>: {r.trainer}, {r.steps} steps{r.adapter ? `, r=${r.adapter.r}, alpha=${r.adapter.alpha}, ${r.adapter.targets.join(' ')}` : ''}</li>
          ))}</ul>}
    </div>
  );
}

/** Loads the model in the engine worker (f32 weights), as a run or a chat would: proves it loads and shows the bytes it took. */
function TryLoad({ name, usable }: { name: string; usable: boolean }) {
  const ensureModel = useStudio((s) => s.ensureModel);
  const loaded = useStudio((s) => s.loadedModels[`${name}|none`]);
  const progress = useStudio((s) => (s.modelLoad?.name === name ? s.modelLoad : null));
  const error = useStudio((s) => (s.modelError?.startsWith(`model ${name}:`) ? s.modelError : null));
  return (
    <div className="load-row" data-testid="model-load">
      <button type="button" disabled={!usable || !!progress || !!loaded} onClick={() => void ensureModel('none', name).catch(() => undefined)} data-testid="model-load-button">
        Load on the GPU (f32)
      </button>{' '}
      {progress && <span role="status">{progress.stage} ({progress.done}/{progress.total})</span>}
      {loaded && <span className="ok" data-testid="model-loaded" data-bytes={loaded.weightBytes}>Loaded: {formatBytes(loaded.weightBytes)} of weights on the GPU</span>}
      {error && <p className="error" role="alert">{error}</p>}
    </div>
  );
}

export function ModelDetails({ model }: { model: StudioModel }) {
  const check = useStudio((s) => s.modelChecks[model.name]);
  const removeModel = useStudio((s) => s.removeModel);
  const [removeError, setRemoveError] = useState<string | null>(null);
  const r = check?.report;
  const remove = async () => {
    if (!window.confirm(`Remove ${model.name} from this browser? Its files are deleted; runs trained on it stay.`)) return;
    setRemoveError(null);
    await removeModel(model.name).catch((e: Error) => setRemoveError(`removing ${model.name} failed: ${e.message}; reload the page and try again`));
  };

  return (
    <div className="card wide" data-testid="model-details">
      <h2>{model.name}</h2>
      {!check && <p role="status">Reading config.json, the tokenizer and the safetensors headers...</p>}
      {check?.error !== undefined && <p className="error" role="alert">{check.error}</p>}
      {r && (
        <div className="model-details">
          <Facts r={r} />
          <div>
            <GpuTable r={r} />
            <details data-testid="model-template">
              <summary>Chat template {r.chatTemplate ? `(${r.chatTemplate.length.toLocaleString()} characters)` : '(none: the plain "role: content" one is used)'}</summary>
              {r.chatTemplate && <pre className="template" tabIndex={0} aria-label="Chat template (Jinja)">{r.chatTemplate}</pre>}
            </details>
            <details>
              <summary>Files ({r.files.length})</summary>
              <ul className="files">{r.files.map((f) => <li key={f.path}><code>{f.path}</code> {formatBytes(f.bytes)}</li>)}</ul>
            </details>
          </div>
        </div>
      )}
      <TryLoad name={model.name} usable={!!r && !r.problems.length} />
      <Adapters name={model.name} />
      {!model.shipped && (
        <p>
          <button type="button" className="danger" onClick={() => void remove()} data-testid="model-remove">Remove {model.name}</button>
          {removeError && <span className="error" role="alert"> {removeError}</span>}
        </p>
      )}
    </div>
  );
}
