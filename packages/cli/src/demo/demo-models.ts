// The demo's workloads by name, apart from the demo itself: `cg-trace demo` parses its options with
// them before it loads the writer, the probe and the models (other commands never load those).

/**
 * The demo workloads: a real TensorFlow.js model through `@cg/tfjs`, the pure-TypeScript MLP, or
 * a real ONNX Runtime inference through `@cg/onnxruntime`.
 */
export type DemoModelKind = "tfjs" | "mlp" | "onnx";
export const DEMO_MODELS: readonly DemoModelKind[] = ["tfjs", "mlp", "onnx"];
