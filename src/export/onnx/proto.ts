// The ONNX protobuf classes from the `onnx-proto` package (a CommonJS module generated from
// onnx.proto with protobufjs), re-exported with the few enums we use by name. Everything that
// builds or reads ONNX files goes through here. Exercised by tests/unit/cli/export-cli.test.ts and tests/unit/ort/ort-engine.test.ts.
import onnxProto from 'onnx-proto';

export const onnx = onnxProto.onnx;
export type NodeProto = onnxProto.onnx.INodeProto;
export type TensorProto = onnxProto.onnx.ITensorProto;
export type ValueInfoProto = onnxProto.onnx.IValueInfoProto;
export type AttributeProto = onnxProto.onnx.IAttributeProto;
export type ModelProto = onnxProto.onnx.IModelProto;

export const DataType = onnx.TensorProto.DataType;
export type ElemType = onnxProto.onnx.TensorProto.DataType;
export const AttributeType = onnx.AttributeProto.AttributeType;
/** The opset the decoder graph is written for (ReduceMean still takes `axes` as an attribute). */
export const OPSET = 17;
/** IR version 8 (ONNX 1.10+), which opset 17 runtimes accept. */
export const IR_VERSION = 8;
