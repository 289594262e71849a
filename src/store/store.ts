// The studio's one store, built from slices (zustand slices pattern). UI components select
// from it with useStudio(selector); only this folder imports zustand.
import { create } from 'zustand';
import { createConfigSlice, type ConfigSlice } from './config-slice';
import { createDatasetsSlice, type DatasetsSlice } from './datasets-slice';
import { createEngineSlice, type EngineSlice } from './engine-slice';
import { createEvalSlice, type EvalSlice } from './eval-slice';
import { createExportSlice, type ExportSlice } from './export-slice';
import { createGpuSlice, type GpuSlice } from './gpu-slice';
import { createModelsSlice, type ModelsSlice } from './models-slice';
import { createPlanSlice, type PlanSlice } from './plan-slice';
import { createStepTimeSlice, type StepTimeSlice } from './step-time-slice';
import { createPlaygroundSlice, type PlaygroundSlice } from './playground-slice';
import { createRunSlice, type RunSlice } from './run-slice';
import { createRunsSlice, type RunsSlice } from './runs-slice';
import { createScoreSlice, type ScoreSlice } from './score-slice';
import { createToolsSlice, type ToolsSlice } from './tools-slice';
import { createUiSlice, type UiSlice } from './ui-slice';

export type StudioState = GpuSlice & EngineSlice & UiSlice & DatasetsSlice & ConfigSlice & ToolsSlice & ModelsSlice & ExportSlice & RunSlice & RunsSlice & PlaygroundSlice & EvalSlice & ScoreSlice & PlanSlice & StepTimeSlice;

export const useStudio = create<StudioState>()((...a) => ({
  ...createGpuSlice(...a),
  ...createEngineSlice(...a),
  ...createUiSlice(...a),
  ...createDatasetsSlice(...a),
  ...createConfigSlice(...a),
  ...createToolsSlice(...a),
  ...createModelsSlice(...a),
  ...createExportSlice(...a),
  ...createRunsSlice(...a),
  ...createPlaygroundSlice(...a),
  ...createEvalSlice(...a),
  ...createRunSlice(...a),
  ...createScoreSlice(...a),
  ...createPlanSlice(...a),
  ...createStepTimeSlice(...a),
}));
