// The studio's one store, built from slices (zustand slices pattern). UI components select
// from it with useStudio(selector); only this folder imports zustand.
import { create } from 'zustand';
import { createGpuSlice, type GpuSlice } from './gpu-slice';
import { createUiSlice, type UiSlice } from './ui-slice';

export type StudioState = GpuSlice & UiSlice;

export const useStudio = create<StudioState>()((...a) => ({
  ...createGpuSlice(...a),
  ...createUiSlice(...a),
}));
