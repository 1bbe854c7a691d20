import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Session options that turn ONNX Runtime's profiler on, with files in a fresh private directory. */
export interface ProfilingSessionOptions {
  readonly enableProfiling: true;
  readonly profileFilePrefix: string;
  /** ONNX Runtime saves the optimized graph here; its node names are the profile's. */
  readonly optimizedModelFilePath: string;
  /** The directory holding both; remove it when done (`rm(directory, { recursive: true })`). */
  readonly directory: string;
}

/**
 * Options to merge into `InferenceSession.create(model, { ...yours, ...profilingSessionOptions() })`
 * for a session to capture later with `captureSessionRun`.
 */
export function profilingSessionOptions(parent: string = tmpdir()): ProfilingSessionOptions {
  const directory = mkdtempSync(join(parent, "cg-onnxruntime-"));
  return {
    enableProfiling: true,
    profileFilePrefix: join(directory, "profile"),
    optimizedModelFilePath: join(directory, "optimized.onnx"),
    directory,
  };
}
