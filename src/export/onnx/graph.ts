// A small builder for ONNX graphs: nodes with generated output names, typed attributes,
// initializers (f32/f16 weights, int64 constants) and graph inputs/outputs with symbolic dims.
// decoder.ts builds the transformer with it; model.ts encodes the result.
// Exercised by tests/unit/cli/export-cli.test.ts and tests/unit/ort/ort-engine.test.ts through onnxruntime-web.
import { fromFloat32 } from '../../model/io/dtype';
import { AttributeType, DataType, type AttributeProto, type ElemType, type NodeProto, type TensorProto, type ValueInfoProto } from './proto';

export type Attr = number | number[] | { f: number } | { s: string };
export type Dim = number | string;
/** Weight element type of the graph: f32, or f16 (inputs, outputs and weights alike). */
export type OnnxDtype = 'f32' | 'f16';

export function elemType(d: OnnxDtype): ElemType {
  return d === 'f16' ? DataType.FLOAT16 : DataType.FLOAT;
}

function attribute(name: string, v: Attr): AttributeProto {
  if (typeof v === 'number') return { name, type: AttributeType.INT, i: v };
  if (Array.isArray(v)) return { name, type: AttributeType.INTS, ints: v };
  if ('f' in v) return { name, type: AttributeType.FLOAT, f: v.f };
  return { name, type: AttributeType.STRING, s: new TextEncoder().encode(v.s) };
}

export function valueInfo(name: string, type: ElemType, dims: Dim[]): ValueInfoProto {
  return { name, type: { tensorType: { elemType: type, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } } };
}

export class GraphBuilder {
  readonly nodes: NodeProto[] = [];
  readonly initializers: TensorProto[] = [];
  readonly inputs: ValueInfoProto[] = [];
  readonly outputs: ValueInfoProto[] = [];
  private counter = 0;
  private readonly consts = new Map<string, string>();

  constructor(readonly dtype: OnnxDtype) {}

  /** Adds a node; returns its output name (`out` names it, else a fresh name from the op). */
  op(opType: string, inputs: string[], attrs: Record<string, Attr> = {}, out?: string): string {
    const name = out ?? `${opType}_${this.counter++}`;
    this.nodes.push({ opType, input: inputs, output: [name], name: `${opType}_node_${this.nodes.length}`, attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)) });
    return name;
  }

  /** A weight in the graph's dtype (f32 values converted when the graph is f16). */
  weight(name: string, dims: number[], data: Float32Array): string {
    const n = dims.reduce((a, b) => a * b, 1);
    if (n !== data.length) throw new Error(`ONNX weight "${name}": shape [${dims.join(', ')}] needs ${n} values, got ${data.length}`);
    const rawData = fromFloat32(this.dtype === 'f16' ? 'F16' : 'F32', data);
    this.initializers.push({ name, dims, dataType: elemType(this.dtype), rawData });
    return name;
  }

  /** An int64 constant (shared by value). */
  int64(values: number[], dims: number[] = [values.length]): string {
    const key = `i64:${dims.join('x')}:${values.join(',')}`;
    const have = this.consts.get(key);
    if (have) return have;
    const name = `const_i64_${this.consts.size}`;
    const raw = new BigInt64Array(values.map((v) => BigInt(v)));
    this.initializers.push({ name, dims, dataType: DataType.INT64, rawData: new Uint8Array(raw.buffer) });
    this.consts.set(key, name);
    return name;
  }

  /** A scalar in the graph's dtype (shared by value). */
  scalar(value: number, type: 'model' | 'f32' = 'model'): string {
    const d: OnnxDtype = type === 'f32' ? 'f32' : this.dtype;
    const key = `${d}:${value}`;
    const have = this.consts.get(key);
    if (have) return have;
    const name = `const_${d}_${this.consts.size}`;
    this.initializers.push({ name, dims: [], dataType: elemType(d), rawData: fromFloat32(d === 'f16' ? 'F16' : 'F32', Float32Array.of(value)) });
    this.consts.set(key, name);
    return name;
  }

  input(name: string, type: ElemType, dims: Dim[]): string {
    this.inputs.push(valueInfo(name, type, dims));
    return name;
  }

  output(name: string, type: ElemType, dims: Dim[]): void {
    this.outputs.push(valueInfo(name, type, dims));
  }
}
