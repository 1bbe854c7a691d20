import type { TraceRecorder } from "@cg/writer";
import type { ProfiledStep } from "./profile-train-step.js";
import { runCaptured } from "./profile-train-step.js";
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
  const capture = new StepCapture({
    session,
    name: options.name ?? "inference_step",
    splitGradients: false,
    ...(options.freeBytes === undefined ? {} : { freeBytes: options.freeBytes }),
  });
  return runCaptured(capture, () => {
    capture.beginStep("forward");
    try {
      return run();
    } finally {
      capture.endStep();
    }
  });
}
