// Public entry of model loading, safe for the browser and workers (no node: imports; Node code
// adds NodeDirSource / openNodeModelSource from ./node-source). See docs/io.md.
// Everything here is exercised by tests/unit/model/io-*.test.ts and tokenizer-*.test.ts.
export { ModelLoadError } from './errors';
export type { FileSource, ProgressFn, ProgressInfo, LoadStage } from './source';
export { MemorySource } from './memory-source';
export { FileListSource, DirectoryHandleSource } from './browser-source';
export { readSafetensorsHeader, readTensor, parseSafetensorsHeader, type TensorInfo, type SafetensorsHeader } from './safetensors';
export { writeSafetensors } from './safetensors-write';
export { SUPPORTED_DTYPES } from './dtype';
export { openWeights, WeightStore } from './weights';
export { expectedTensors } from './expected';
export { loadModelFiles, type LoadedModel, type LoadOptions } from './loader';
export { readPeftAdapter, parseAdapterConfig, peftKey, ADAPTER_CONFIG, ADAPTER_WEIGHTS } from './peft';
export { readLlama2cCheckpoint, parseLlama2cHeader, permuteRopeRows } from './llama2c';
export { convertLlama2c } from './llama2c-convert';
export { parseModelConfig, modelConfigToJson } from '../hf-config';
export { Tokenizer, loadTokenizer } from '../tokenizer';
export { StreamDecoder } from '../tokenizer/stream';
