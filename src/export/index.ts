// Public entry of the exports, safe for the browser and workers (no node: imports; Node code
// adds NodeDirSink from ./node-sink): the merged Hugging Face folder and the ONNX folder.
// The TRL/verl bundle will live in ./trl. See README "Export"; tested by tests/unit/export/*.test.ts.
export { mergeLoraPair, mergedTensors, type TensorSource } from './merge';
export { exportMergedFolder, collectMerged, MERGED_DTYPES, type MergedDtype, type MergedExportInput, type MergedExportOptions } from './hf-folder';
export { exportOnnxFolder, onnxModelPath, ONNX_DTYPES, type OnnxExportOptions } from './onnx/export';
export { buildDecoderGraph, onnxNames } from './onnx/decoder';
export type { OnnxDtype } from './onnx/graph';
export { MemorySink, type ExportSink } from './sink';
