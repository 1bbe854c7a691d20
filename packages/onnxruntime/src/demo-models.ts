import { buildOnnxModel, linearNodes, seededWeights } from "./build-onnx-model.js";

/**
 * A two-layer perceptron with a dynamic batch: `x[batch, inputs]` → `encoder/fc1` (MatMul, Add,
 * Relu) → `head/fc2` (MatMul, Add) → `head/Softmax` → `y[batch, classes]`. Node names carry
 * scopes, as exporters write them.
 */
export function mlpModel(inputs = 16, hidden = 32, classes = 4, seed = 1): Uint8Array {
  return buildOnnxModel({
    name: "mlp",
    inputs: [{ name: "x", dims: ["batch", inputs] }],
    outputs: [{ name: "y", dims: ["batch", classes] }],
    initializers: [
      { name: "encoder.fc1.weight", dims: [inputs, hidden], values: seededWeights(inputs * hidden, seed) },
      { name: "encoder.fc1.bias", dims: [hidden], values: seededWeights(hidden, seed + 1, 0.1) },
      { name: "head.fc2.weight", dims: [hidden, classes], values: seededWeights(hidden * classes, seed + 2) },
      { name: "head.fc2.bias", dims: [classes], values: seededWeights(classes, seed + 3, 0.1) },
    ],
    nodes: [
      ...linearNodes("/encoder/fc1", { input: "x", weight: "encoder.fc1.weight", bias: "encoder.fc1.bias" }),
      {
        name: "/encoder/act/Relu",
        opType: "Relu",
        inputs: ["/encoder/fc1/Add_output_0"],
        outputs: ["/encoder/act/Relu_output_0"],
      },
      ...linearNodes("/head/fc2", {
        input: "/encoder/act/Relu_output_0",
        weight: "head.fc2.weight",
        bias: "head.fc2.bias",
      }),
      {
        name: "/head/Softmax",
        opType: "Softmax",
        inputs: ["/head/fc2/Add_output_0"],
        outputs: ["y"],
        ints: { axis: -1 },
      },
    ],
  });
}

/**
 * A gated residual block: `x` feeds two branches, `block/left` (MatMul, Tanh) and `block/right`
 * (MatMul, Sigmoid), which `block/merge/Mul` joins; `block/residual/Add` adds `x` back.
 */
export function branchResidualModel(width = 24, seed = 7): Uint8Array {
  return buildOnnxModel({
    name: "branch_residual",
    inputs: [{ name: "x", dims: [2, width] }],
    outputs: [{ name: "y", dims: [2, width] }],
    initializers: [
      { name: "left.weight", dims: [width, width], values: seededWeights(width * width, seed) },
      { name: "right.weight", dims: [width, width], values: seededWeights(width * width, seed + 1) },
    ],
    nodes: [
      { name: "/block/left/MatMul", opType: "MatMul", inputs: ["x", "left.weight"], outputs: ["left_mm"] },
      { name: "/block/left/Tanh", opType: "Tanh", inputs: ["left_mm"], outputs: ["left_out"] },
      { name: "/block/right/MatMul", opType: "MatMul", inputs: ["x", "right.weight"], outputs: ["right_mm"] },
      { name: "/block/right/Sigmoid", opType: "Sigmoid", inputs: ["right_mm"], outputs: ["right_out"] },
      { name: "/block/merge/Mul", opType: "Mul", inputs: ["left_out", "right_out"], outputs: ["gated"] },
      { name: "/block/residual/Add", opType: "Add", inputs: ["gated", "x"], outputs: ["y"] },
    ],
  });
}
