// Store slice for the Config panel: the YAML text, the preset it started from, the result of
// validating it with the CLI's parser (config or the problem and where), and the Start request.
// Exercised by tests/e2e/studio-config.spec.ts.
import type { StateCreator } from 'zustand';
import { checkConfigText, setField, type ConfigCheck } from '../ui/config/validate';
import { DEFAULT_PRESET, PRESETS } from '../ui/config/presets';
import type { RlConfig } from '../rl/config-validate';
import type { StudioState } from './store';

/** The name validation messages use for the text in the editor. */
export const CONFIG_FILE = 'config.yaml';

export interface ConfigSlice {
  configText: string;
  configPreset: string;
  configCheck: ConfigCheck;
  /** The last config that validated (the form keeps showing it, disabled, while the YAML is wrong). */
  configLastValid: RlConfig | null;
  setConfigText: (text: string) => void;
  loadPreset: (file: string) => void;
  setConfigField: (path: string, value: unknown) => void;
  /** Start pressed: the run slice loads the model, picks the data and starts the run (errors beside Start). */
  requestStart: () => void;
}

const initial = PRESETS.find((p) => p.file === DEFAULT_PRESET) ?? PRESETS[0];
const initialCheck = checkConfigText(initial.text, CONFIG_FILE);

/** The state after validating `text`: its check, and the last valid config kept when it fails. */
function validated(text: string, lastValid: RlConfig | null): Pick<ConfigSlice, 'configText' | 'configCheck' | 'configLastValid'> {
  const configCheck = checkConfigText(text, CONFIG_FILE);
  return { configText: text, configCheck, configLastValid: configCheck.ok ? configCheck.config : lastValid };
}

export const createConfigSlice: StateCreator<StudioState, [], [], ConfigSlice> = (set, get) => ({
  configText: initial.text,
  configPreset: initial.file,
  configCheck: initialCheck,
  configLastValid: initialCheck.ok ? initialCheck.config : null,

  setConfigText: (text) => {
    if (text === get().configText) return;
    set({ ...validated(text, get().configLastValid), runStartError: null });
  },
  loadPreset: (file) => {
    const p = PRESETS.find((x) => x.file === file);
    if (!p) return;
    set({ configPreset: p.file, ...validated(p.text, get().configLastValid), runStartError: null });
  },
  setConfigField: (path, value) => get().setConfigText(setField(get().configText, path, value)),
  requestStart: () => {
    if (get().configCheck.ok) void get().startRun();
  },
});
