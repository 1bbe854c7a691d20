import type { TraceRecorder } from "@cg/writer";
import type { Optimizer, Scalar, Variable } from "@tensorflow/tfjs";
import { engine as tfjsEngine } from "@tensorflow/tfjs";
import type { CaptureSummary } from "./emit-recording.js";
import type { EngineInternals, OptimizerLike, VariableLike } from "./engine-internals.js";
import { StepCapture } from "./step-capture.js";

export interface TrainStepOptions {
  optimizer: Optimizer;
  /** The forward pass: returns the scalar loss to minimise (as for `optimizer.minimize`). */
  loss: () => Scalar;
  /**
   * Variables to train; default every registered trainable variable, as `minimize` does. Pass your
   * model's variables: the default also includes e.g. Adam's beta-power scalars, which receive no
   * gradient and are then reported `missing`.
   */
  variables?: Variable[] | undefined;
  /** Name of the measured region; default `train_step`. */
  name?: string | undefined;
  /** Root of the gradient facts; default `tfjs`. */
  gradientRoot?: string | undefined;
  /** Free bytes beside `tf.memory().numBytes` in device-memory checkpoints; default 0. */
  freeBytes?: (() => number) | undefined;
}

export interface ProfiledStep<T> {
  /** What the step returned. */
  result: T;
  /** What was written; absent when the session does not record (a closed capture gate). */
  capture?: CaptureSummary | undefined;
  /** A failure of the profiler itself; the step's own result is still returned. */
  captureError?: unknown;
}

/**
 * Runs one training step, `optimizer.minimize(loss, true, variables)`, inside a measured region with
 * `forward`, `backward` and `optimizer` step spans, one `op` per kernel, memory events for every buffer
 * allocated or released, `tensor` events for variables and gradients, and one `gradient` fact per
 * variable. With a session that does not record, it just runs the step. Returns the loss scalar
 * (the caller disposes it).
 */
export function profileTrainStep(session: TraceRecorder, options: TrainStepOptions): ProfiledStep<Scalar> {
  const { optimizer, loss, variables } = options;
  if (!session.isRecording) return { result: minimize(optimizer, loss, variables) };
  const capture = new StepCapture({
    session,
    name: options.name ?? "train_step",
    optimizer: optimizer as unknown as OptimizerLike,
    variables: (variables as unknown as VariableLike[] | undefined) ?? trainableVariables(),
    gradientRoot: options.gradientRoot ?? "tfjs",
    splitGradients: true,
    ...(options.freeBytes === undefined ? {} : { freeBytes: options.freeBytes }),
  });
  return runCaptured(capture, () => minimize(optimizer, loss, variables));
}

/** Runs `body` inside a begun capture and always ends it; a profiler failure never replaces the step's outcome. */
export function runCaptured<T>(capture: StepCapture, body: () => T): ProfiledStep<T> {
  capture.begin();
  let result: T;
  try {
    result = body();
  } catch (error) {
    abandon(capture);
    throw error;
  }
  return complete(capture, result);
}

/** `runCaptured` for a step that awaits: the hooks stay installed until its promise settles. */
export async function runCapturedAsync<T>(
  capture: StepCapture,
  body: () => Promise<T>,
): Promise<ProfiledStep<T>> {
  capture.begin();
  let result: T;
  try {
    result = await body();
  } catch (error) {
    abandon(capture);
    throw error;
  }
  return complete(capture, result);
}

/** Ends a capture whose step threw: the step's own error is the one to report. */
function abandon(capture: StepCapture): void {
  try {
    capture.end();
  } catch {
    // Ignored in favour of the step's error.
  }
}

/** Ends a capture whose step succeeded; a failure to end it is reported beside the result. */
function complete<T>(capture: StepCapture, result: T): ProfiledStep<T> {
  try {
    return { result, capture: capture.end() };
  } catch (captureError) {
    return { result, captureError };
  }
}

function minimize(optimizer: Optimizer, loss: () => Scalar, variables: Variable[] | undefined): Scalar {
  return optimizer.minimize(loss, true, variables) as Scalar;
}

function trainableVariables(): VariableLike[] {
  const registered = (tfjsEngine() as unknown as EngineInternals).state.registeredVariables;
  return Object.values(registered).filter((variable) => variable.trainable);
}
