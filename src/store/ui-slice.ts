// Store slice for the shell: which panel is shown, and the list of panels in navigation order
// (id, title, one-line job, and whether it is built yet). Read by src/ui/App.tsx; exercised by
// tests/e2e/studio-layout.spec.ts.
import type { StateCreator } from 'zustand';
import type { StudioState } from './store';

export type PanelId = 'models' | 'datasets' | 'config' | 'run' | 'runs' | 'export' | 'playground' | 'eval' | 'tools' | 'gpu';

export interface PanelInfo {
  id: PanelId;
  title: string;
  /** What the panel does (nav tooltip; the "coming" note of panels not built yet). */
  job: string;
  built: boolean;
}

export const PANELS: readonly PanelInfo[] = [
  { id: 'models', title: 'Models', built: true, job: 'Pick a shipped model or drop a Hugging Face folder; see its architecture, parameters, GPU bytes per quantization, chat template and adapters; kept in the browser (OPFS).' },
  { id: 'datasets', title: 'Datasets', built: true, job: 'Drop a JSONL file or pick a shipped one: every line validated, schema detected, first tasks previewed, train/eval split.' },
  { id: 'config', title: 'Config', built: true, job: 'Edit the training config as a form or YAML, validated as you type with the CLI\'s messages; presets and a diff against them.' },
  { id: 'run', title: 'Run', built: true, job: 'Start, pause, resume and stop a run; live charts of the CLI\'s metrics; live rollouts with every turn, tool call and reward.' },
  { id: 'runs', title: 'Runs', built: true, job: 'Every run kept in the browser with the CLI\'s folder layout; resume after a reload; compare curves; import and export run folders.' },
  { id: 'export', title: 'Export', built: true, job: 'Download the trained adapter as a PEFT folder zip, with the run\'s config and metrics.' },
  { id: 'playground', title: 'Playground', built: true, job: 'Chat with a model and its tools, streaming; base and adapter side by side on the same prompt and seed.' },
  { id: 'eval', title: 'Eval', built: true, job: 'Score base and adapter on a held-out split: accuracy or pass@k, tool-call rate, malformed calls.' },
  { id: 'tools', title: 'Tools & search', built: true, job: 'The Python sandbox\'s limits; search through the offline corpus or the proxy, with a test query.' },
  { id: 'gpu', title: 'GPU', built: true, job: 'Adapter, features, limits obtained, memory counters and a kernel self-test.' },
];

export interface UiSlice {
  panel: PanelId;
  setPanel: (p: PanelId) => void;
}

export const createUiSlice: StateCreator<StudioState, [], [], UiSlice> = (set) => ({
  panel: 'gpu',
  setPanel: (panel) => set({ panel }),
});
