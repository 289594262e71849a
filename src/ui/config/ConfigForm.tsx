// The Config panel's form: the fields most runs change, each written into the YAML (comments
// kept) and validated like the rest. Read-only (showing the last valid config) while the YAML is wrong.
import { useId } from 'react';
import { FIELDS, getPath, type RlConfig } from '../../rl/config-validate';

const COMMON = ['trainer', 'data.env', 'rollout.batch_size', 'rollout.group_size', 'rollout.max_new_tokens', 'optim.lr', 'lora.rank', 'train.steps'] as const;

interface FieldProps { path: string; config: RlConfig | null; disabled: boolean; onSet: (path: string, v: unknown) => void }

function FormField({ path, config, disabled, onSet }: FieldProps) {
  const id = useId();
  const kind = FIELDS[path].kind;
  const value = config ? getPath(config, path) : '';
  const hint = `${id}-hint`;
  return (
    <div className="form-row">
      <label htmlFor={id}>{path}</label>
      {kind.t === 'enum' ? (
        <select id={id} value={String(value)} disabled={disabled} aria-describedby={hint} onChange={(e) => onSet(path, e.target.value)}>
          {kind.values.map((v) => <option key={v} value={v}>{v}</option>)}
        </select>
      ) : (
        <input id={id} type="number" value={String(value)} disabled={disabled} aria-describedby={hint}
          step={kind.t === 'int' ? 1 : 'any'} min={kind.t === 'int' ? kind.min : undefined}
          onChange={(e) => { if (e.target.value !== '') onSet(path, Number(e.target.value)); }} />
      )}
      <span id={hint} className="small">{FIELDS[path].doc}</span>
    </div>
  );
}

/** `config` is the last valid one; `valid` says whether the YAML is valid now (else the form is read-only). */
export function ConfigForm({ config, valid, onSet }: { config: RlConfig | null; valid: boolean; onSet: (path: string, v: unknown) => void }) {
  return (
    <fieldset className="config-form" data-testid="config-form">
      <legend>Common fields</legend>
      {!valid && <p className="small">Fix the YAML to edit these fields here; they show the last valid config.</p>}
      {COMMON.map((p) => <FormField key={p} path={p} config={config} disabled={!valid} onSet={onSet} />)}
    </fieldset>
  );
}

/** Fields whose value differs between two configs: path, preset value, current value. */
export function configDiff(base: RlConfig, current: RlConfig): { path: string; from: string; to: string }[] {
  const show = (v: unknown) => JSON.stringify(v);
  return Object.keys(FIELDS)
    .map((path) => ({ path, from: show(getPath(base, path)), to: show(getPath(current, path)) }))
    .filter((d) => d.from !== d.to);
}
