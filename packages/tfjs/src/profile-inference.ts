import type { TraceRecorder } from "@cg/writer";
import type { ProfiledStep } from "./profile-train-step.js";
import { runCaptured, runCapturedAsync } from "./profile-train-step.js";
import { StepCapture } from "./step-capture.js";

export interface InferenceStepOptions {
  /** Name of the measured region; default `inference_step`. */
  name?: string | undefined;
  /** Free bytes beside `tf.memory().numBytes` in device-memory checkpoints; default 0. */
  freeBytes?: (() => number) | undefined;
}

/**
 * Runs one synchronous inference call (`model.predict(x)`, `model.execute(inputs)`, any tfjs code)
 * inside a measured region with a `forward` step span, one `op` per kernel and memory events for every
 * buffer allocated or released. With a session that does not record, it just runs `run`.
 */
export function profileInference<T>(
  session: TraceRecorder,
  run: () => T,
  options: InferenceStepOptions = {},
): ProfiledStep<T> {
  if (!session.isRecording) return { result: run() };
  const capture = inferenceCapture(session, options);
  return runCaptured(capture, () => {
    capture.beginStep("forward");
    try {
      return run();
    } finally {
      capture.endStep();
    }
  });
}

/**
 * The same for an inference call that awaits: `graphModel.executeAsync(inputs)` (models with
 * control flow or dynamic shapes), or code that reads results back with `await tensor.data()`. The
 * hooks stay installed until the promise settles, so every kernel that runs in that time is
 * recorded — keep other tfjs work from running concurrently during the captured step.
 */
export async function profileInferenceAsync<T>(
  session: TraceRecorder,
  run: () => Promise<T>,
  options: InferenceStepOptions = {},
): Promise<ProfiledStep<T>> {
  if (!session.isRecording) return { result: await run() };
  const capture = inferenceCapture(session, options);
  return runCapturedAsync(capture, async () => {
    capture.beginStep("forward");
    try {
      return await run();
    } finally {
      capture.endStep();
    }
  });
}

function inferenceCapture(session: TraceRecorder, options: InferenceStepOptions): StepCapture {
  return new StepCapture({
    session,
    name: options.name ?? "inference_step",
    splitGradients: false,
    ...(options.freeBytes === undefined ? {} : { freeBytes: options.freeBytes }),
  });
}
