import onnxProto from "onnx-proto";
import { traceDtypeOfTensorProto } from "./dtype-label.js";

const { onnx } = onnxProto;

/** A node of an ONNX graph: the names of the tensors it reads and writes. */
export interface OnnxGraphNode {
  readonly opType: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
}

/** A graph input, output or initializer: name, trace dtype label, and dims (`undefined` for a symbolic dim). */
export interface OnnxValueInfo {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly (number | undefined)[];
}

/**
 * What a trace needs from a model's top-level graph: node names → tensor names, initializers
 * (the parameters), and the graph's inputs and outputs. Read from the optimized model ONNX Runtime
 * saves, whose node names are the ones its profile uses.
 */
export interface OnnxGraph {
  readonly nodes: ReadonlyMap<string, OnnxGraphNode>;
  readonly initializers: ReadonlyMap<string, OnnxValueInfo>;
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
}

/** Decodes an ONNX model (`ModelProto` bytes). Initializer contents are not copied. */
export function readOnnxGraph(bytes: Uint8Array): OnnxGraph {
  const model = onnx.ModelProto.decode(bytes);
  const graph = model.graph;
  const nodes = new Map<string, OnnxGraphNode>();
  const initializers = new Map<string, OnnxValueInfo>();
  if (graph == null) return { nodes, initializers, inputs: [], outputs: [] };
  for (const node of graph.node ?? []) {
    nodes.set(node.name ?? "", {
      opType: node.opType ?? "",
      inputs: (node.input ?? []).filter((name) => name !== ""),
      outputs: (node.output ?? []).filter((name) => name !== ""),
    });
  }
  for (const initializer of graph.initializer ?? []) {
    const name = initializer.name ?? "";
    initializers.set(name, {
      name,
      dtype: traceDtypeOfTensorProto(initializer.dataType ?? 0),
      shape: (initializer.dims ?? []).map(wholeNumber),
    });
  }
  const valueInfo = (value: onnxProto.onnx.IValueInfoProto): OnnxValueInfo => {
    const tensorType = value.type?.tensorType;
    const dims = tensorType?.shape?.dim ?? [];
    return {
      name: value.name ?? "",
      dtype: traceDtypeOfTensorProto(tensorType?.elemType ?? 0),
      shape: dims.map((dim) =>
        dim.dimParam || dim.dimValue == null ? undefined : wholeNumber(dim.dimValue),
      ),
    };
  };
  return {
    nodes,
    initializers,
    inputs: (graph.input ?? []).filter((input) => !initializers.has(input.name ?? "")).map(valueInfo),
    outputs: (graph.output ?? []).map(valueInfo),
  };
}

// protobufjs hands 64-bit fields over as numbers or as Long objects.
function wholeNumber(value: number | { toNumber(): number }): number {
  return typeof value === "number" ? value : value.toNumber();
}
