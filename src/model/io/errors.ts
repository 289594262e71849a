// Errors raised while reading model files: each names the file (and tensor or field when there
// is one) and says what to do. Thrown by everything under src/model/io and by
// src/model/hf-config.ts; tests/unit/model/io-*.test.ts check the messages.

export class ModelLoadError extends Error {
  constructor(
    /** The file at fault, as the source lists it (e.g. "model.safetensors"). */
    readonly file: string,
    message: string,
    /** The tensor or field at fault, when there is one. */
    readonly item?: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'ModelLoadError';
  }
}
