// Store slice for the Config panel: the YAML text, the preset it started from, the result of
// validating it with the CLI's parser (config or the problem and where), and the Start request.
// Exercised by tests/e2e/studio-config.spec.ts.
import type { StateCreator } from 'zustand';
import { checkConfigText, setField, type ConfigCheck } from '../ui/config/validate';
import { DEFAULT_PRESET, PRESETS } from '../ui/config/presets';
import type { StudioState } from './store';

/** The name validation messages use for the text in the editor. */
export const CONFIG_FILE = 'config.yaml';

export interface ConfigSlice {
  configText: string;
  configPreset: string;
  configCheck: ConfigCheck;
  /** What pressing Start did (shown beside it). */
  startNote: string | null;
  setConfigText: (text: string) => void;
  loadPreset: (file: string) => void;
  setConfigField: (path: string, value: unknown) => void;
  requestStart: () => void;
}

const initial = PRESETS.find((p) => p.file === DEFAULT_PRESET) ?? PRESETS[0];

export const createConfigSlice: StateCreator<StudioState, [], [], ConfigSlice> = (set, get) => ({
  configText: initial.text,
  configPreset: initial.file,
  configCheck: checkConfigText(initial.text, CONFIG_FILE),
  startNote: null,

  setConfigText: (text) => {
    if (text === get().configText) return;
    set({ configText: text, configCheck: checkConfigText(text, CONFIG_FILE), startNote: null });
  },
  loadPreset: (file) => {
    const p = PRESETS.find((x) => x.file === file);
    if (!p) return;
    set({ configPreset: p.file, configText: p.text, configCheck: checkConfigText(p.text, CONFIG_FILE), startNote: null });
  },
  setConfigField: (path, value) => get().setConfigText(setField(get().configText, path, value)),
  requestStart: () => {
    if (!get().configCheck.ok) return;
    set({ startNote: 'The config is valid. Runs start through the engine worker, which is being built (issue 10): nothing was started.' });
  },
});
