// Encodes a built graph as an ONNX model file. Weights go inside the protobuf unless the file
// would pass protobuf's 2 GB limit (or `externalThreshold`), in which case every weight of 1 KiB
// or more moves to one external data file beside it (`<name>_data`, offsets aligned to 4 KiB) that
// onnxruntime loads with the model. Exercised by tests/unit/cli/export-cli.test.ts and tests/unit/ort/ort-engine.test.ts.
import type { GraphBuilder } from './graph';
import { IR_VERSION, onnx, OPSET, type TensorProto } from './proto';

/** Protobuf messages cannot exceed 2 GiB; keep a margin for the graph itself. */
export const PROTOBUF_LIMIT = 2 ** 31 - 64 * 2 ** 20;
const ALIGN = 4096;
/** Initializers smaller than this stay in the .onnx file. */
const MIN_EXTERNAL = 1024;

export interface EncodedModel {
  /** The .onnx file. */
  model: Uint8Array;
  /** The external data file, when weights were moved out: its name and bytes (in parts). */
  external?: { path: string; parts: Uint8Array[]; bytes: number };
}

export interface EncodeOptions {
  /** File name of the model (the external data file is named after it). */
  fileName: string;
  /** Move weights out when their bytes exceed this (default: PROTOBUF_LIMIT). */
  externalThreshold?: number;
  /** Stored in the model's metadata_props (e.g. the config, the adapter merged in). */
  metadata?: Record<string, string>;
}

export function encodeModel(g: GraphBuilder, opts: EncodeOptions): EncodedModel {
  const weightBytes = g.initializers.reduce((n, t) => n + (t.rawData?.length ?? 0), 0);
  let initializers: TensorProto[] = g.initializers;
  let external: EncodedModel['external'];
  if (weightBytes > (opts.externalThreshold ?? PROTOBUF_LIMIT)) {
    const path = `${opts.fileName}_data`;
    const parts: Uint8Array[] = [];
    let offset = 0;
    initializers = g.initializers.map((t) => {
      const raw = t.rawData ?? new Uint8Array(0);
      // Shape constants stay inline: shape inference must read them while loading the graph.
      if (raw.length < MIN_EXTERNAL) return t;
      const pad = (ALIGN - (offset % ALIGN)) % ALIGN;
      if (pad) parts.push(new Uint8Array(pad));
      offset += pad;
      parts.push(raw);
      const entry: TensorProto = {
        ...t, rawData: undefined, dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
        externalData: [{ key: 'location', value: path }, { key: 'offset', value: String(offset) }, { key: 'length', value: String(raw.length) }],
      };
      offset += raw.length;
      return entry;
    });
    external = { path, parts, bytes: offset };
  }
  const model = onnx.ModelProto.encode({
    irVersion: IR_VERSION,
    opsetImport: [{ domain: '', version: OPSET }],
    producerName: 'rl-studio',
    producerVersion: '0.1.0',
    graph: { name: 'decoder', node: g.nodes, initializer: initializers, input: g.inputs, output: g.outputs },
    metadataProps: Object.entries(opts.metadata ?? {}).map(([key, value]) => ({ key, value })),
  }).finish();
  return { model, external };
}
