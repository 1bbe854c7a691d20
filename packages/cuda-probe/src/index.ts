// Sinks are defined in @cg/schema, so that a trace session is one without this package depending on the writer.
export type { DeviceMemorySink } from "@cg/schema/core";
export { CudaProbeError, type CudaProbeErrorOptions, type CudaProbeReason } from "./cuda-probe-error.js";
export {
  type DeviceMemorySample,
  deviceLabel,
  type RecordOptions,
} from "./device-memory-sample.js";
export type { LibraryAttempt } from "./nvml-library.js";
export { nvmlLibraryCandidates, nvmlLibraryEnvironmentVariable } from "./nvml-library.js";
export {
  type CudaDevice,
  CudaProbe,
  type OpenProbeOptions,
  type OpenProbeResult,
  openProbe,
} from "./probe.js";
export { DeviceMemorySampler, type SamplerOptions, type SamplerState, type SamplerStats } from "./sampler.js";
