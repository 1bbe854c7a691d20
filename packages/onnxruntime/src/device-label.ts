// Execution providers and the device label their kernels run on. ONNX Runtime's profile names the
// provider but not the device ordinal; providers on an accelerator get ordinal 0 unless told.
const ACCELERATORS: Readonly<Record<string, string>> = {
  CUDAExecutionProvider: "cuda",
  TensorrtExecutionProvider: "cuda",
  NvTensorRTRTXExecutionProvider: "cuda",
  ROCMExecutionProvider: "rocm",
  MIGraphXExecutionProvider: "rocm",
  DmlExecutionProvider: "dml",
  WebGpuExecutionProvider: "webgpu",
  CoreMLExecutionProvider: "coreml",
  QNNExecutionProvider: "qnn",
  OpenVINOExecutionProvider: "openvino",
};

/** `cpu` for the CPU provider, `cuda:0` for CUDA/TensorRT, otherwise the provider's short name. */
export function deviceForProvider(provider: string, ordinal = 0): string {
  if (provider === "CPUExecutionProvider" || provider === "") return "cpu";
  const accelerator = ACCELERATORS[provider];
  if (accelerator !== undefined) return `${accelerator}:${ordinal}`;
  return provider.replace(/ExecutionProvider$/, "").toLowerCase();
}
