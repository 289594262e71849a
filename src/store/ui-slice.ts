// Store slice for the shell: which panel is shown.
import type { StateCreator } from 'zustand';
import type { StudioState } from './store';

export type PanelId = 'gpu';

export interface UiSlice {
  panel: PanelId;
  setPanel: (p: PanelId) => void;
}

export const createUiSlice: StateCreator<StudioState, [], [], UiSlice> = (set) => ({
  panel: 'gpu',
  setPanel: (panel) => set({ panel }),
});
