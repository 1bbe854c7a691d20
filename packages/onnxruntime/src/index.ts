export {
  buildOnnxModel,
  type InitializerSpec,
  type ModelSpec,
  type NodeSpec,
  seededWeights,
  type ValueSpec,
} from "./build-onnx-model.js";
export {
  type CapturedRun,
  type CaptureRunOptions,
  captureSessionRun,
  type OrtTensorLike,
  type ProfilableSession,
} from "./capture-session-run.js";
export { branchResidualModel, mlpModel } from "./demo-models.js";
export {
  type OnnxruntimeDemoOptions,
  type OnnxruntimeDemoResult,
  runOnnxruntimeDemo,
} from "./demo-workload.js";
export { deviceForProvider } from "./device-label.js";
export { traceDtype, traceDtypeOfTensorProto } from "./dtype-label.js";
export type { EmissionSummary, TensorCheckpoint } from "./emit-ort-run.js";
export { textEncoderModel, writeFeatureExtractionModel } from "./feature-extraction-model.js";
export {
  type ImportedProfile,
  type ImportOrtProfileOptions,
  importOrtProfile,
} from "./import-ort-profile.js";
export {
  OrtProfileError,
  type OrtProfileErrorCode,
  type OrtProfileErrorOptions,
} from "./ort-profile-error.js";
// Every shape of a scanned profile run is public.
export type * from "./ort-profile-run.js";
export {
  type ProfiledInference,
  type ProfileInferenceOptions,
  profileInference,
} from "./profile-inference.js";
export {
  type PipelineLike,
  type ProfiledPipelineCall,
  type ProfilePipelineOptions,
  profilePipeline,
} from "./profile-pipeline.js";
export { type ProfilingSessionOptions, profilingSessionOptions } from "./profiling-session-options.js";
export { type ReadOrtProfileOptions, readOrtProfile, scanOrtProfileText } from "./read-ort-profile.js";
