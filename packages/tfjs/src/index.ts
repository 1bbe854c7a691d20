export {
  createDemoModel,
  type DemoArchitecture,
  type DemoModel,
  type DemoModelOptions,
  runTfjsDemo,
  type TfjsDemoOptions,
  type TfjsDemoResult,
} from "./demo-workload.js";
export { tfjsStorageBytes, traceDtypeLabel } from "./dtype-label.js";
export type { CaptureSummary } from "./emit-recording.js";
export { type GradientFact, gradientFact } from "./gradient-fact.js";
export { type InferenceStepOptions, profileInference, profileInferenceAsync } from "./profile-inference.js";
export { type ProfiledStep, profileTrainStep, type TrainStepOptions } from "./profile-train-step.js";
export { StepCapture, type StepCaptureOptions } from "./step-capture.js";
export { tensorLabel } from "./tensor-label.js";
export { type TfjsCapture, TfjsProfiler, type TfjsProfilerOptions } from "./tfjs-profiler.js";
export {
  TfjsProfilerError,
  type TfjsProfilerErrorCode,
  type TfjsProfilerErrorOptions,
} from "./tfjs-profiler-error.js";
