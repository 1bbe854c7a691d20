import onnxProto from "onnx-proto";

const { onnx } = onnxProto;

/** An initializer (a parameter of the model): float32 values, or int64 ones for shapes and axes. */
export interface InitializerSpec {
  readonly name: string;
  readonly dims: readonly number[];
  readonly values: ArrayLike<number>;
  readonly elemType?: "float" | "int64" | undefined;
}

/** A graph input or output: float32 unless `elemType` (an ONNX `TensorProto.DataType`) says otherwise; a string dim is symbolic. */
export interface ValueSpec {
  readonly name: string;
  readonly dims: readonly (number | string)[];
  readonly elemType?: number | undefined;
}

export interface NodeSpec {
  readonly name: string;
  readonly opType: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** Integer attributes (`axis`, …). */
  readonly ints?: Readonly<Record<string, number>> | undefined;
}

export interface ModelSpec {
  readonly name: string;
  readonly inputs: readonly ValueSpec[];
  readonly outputs: readonly ValueSpec[];
  readonly nodes: readonly NodeSpec[];
  readonly initializers?: readonly InitializerSpec[] | undefined;
  /** Default opset 17. */
  readonly opset?: number | undefined;
}

/** Encodes an ONNX model (IR version 8) from a plain description: small real models for demos and tests. */
export function buildOnnxModel(spec: ModelSpec): Uint8Array {
  const valueInfo = (value: ValueSpec) =>
    onnx.ValueInfoProto.create({
      name: value.name,
      type: {
        tensorType: {
          elemType: value.elemType ?? onnx.TensorProto.DataType.FLOAT,
          shape: {
            dim: value.dims.map((dim) => (typeof dim === "string" ? { dimParam: dim } : { dimValue: dim })),
          },
        },
      },
    });
  const graph = onnx.GraphProto.create({
    name: spec.name,
    node: spec.nodes.map((node) =>
      onnx.NodeProto.create({
        name: node.name,
        opType: node.opType,
        input: [...node.inputs],
        output: [...node.outputs],
        attribute: Object.entries(node.ints ?? {}).map(([name, value]) =>
          onnx.AttributeProto.create({ name, i: value, type: onnx.AttributeProto.AttributeType.INT }),
        ),
      }),
    ),
    initializer: (spec.initializers ?? []).map((initializer) =>
      initializer.elemType === "int64"
        ? onnx.TensorProto.create({
            name: initializer.name,
            dims: [...initializer.dims],
            dataType: onnx.TensorProto.DataType.INT64,
            int64Data: Array.from(initializer.values),
          })
        : onnx.TensorProto.create({
            name: initializer.name,
            dims: [...initializer.dims],
            dataType: onnx.TensorProto.DataType.FLOAT,
            floatData: Array.from(initializer.values),
          }),
    ),
    input: spec.inputs.map(valueInfo),
    output: spec.outputs.map(valueInfo),
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: "@cg/onnxruntime",
    opsetImport: [{ domain: "", version: spec.opset ?? 17 }],
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}

/**
 * A dense layer as exporters write it: `<scope>/MatMul` of `input` by `weight`, then `<scope>/Add`
 * of `bias`. Outputs are named `<scope>/MatMul_output_0` and `<scope>/Add_output_0` unless given.
 */
export function linearNodes(
  scope: string,
  { input, weight, bias }: { input: string; weight: string; bias: string },
  outputs: readonly [matmul: string, add: string] = [`${scope}/MatMul_output_0`, `${scope}/Add_output_0`],
): NodeSpec[] {
  return [
    { name: `${scope}/MatMul`, opType: "MatMul", inputs: [input, weight], outputs: [outputs[0]] },
    { name: `${scope}/Add`, opType: "Add", inputs: [outputs[0], bias], outputs: [outputs[1]] },
  ];
}

/** Deterministic weights in [-scale, scale) (a small LCG), so demo and test models are reproducible. */
export function seededWeights(count: number, seed: number, scale = 0.5): Float32Array {
  const values = new Float32Array(count);
  let state = seed >>> 0 || 1;
  for (let index = 0; index < count; index++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    values[index] = (state / 2 ** 32) * 2 * scale - scale;
  }
  return values;
}
