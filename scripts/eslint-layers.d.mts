// Types for scripts/eslint-layers.mjs (the layer table and its ESLint rule), so TypeScript tests
// can import the table. Exercised by tests/unit/tooling/lint-layers.test.ts.
export interface Layer { name: string; folders: string[]; role: string }
export interface LayerException { from: string; to: string; why: string }
export const LAYERS: Layer[];
export const LAYER_EXCEPTIONS: LayerException[];
export function layerViolation(root: string, file: string, spec: string): string | null;
export const layersPlugin: { rules: Record<string, unknown> };
