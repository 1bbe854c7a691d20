import { CaptureGate, ProfileRun, type TraceRecorder, TraceSession } from "@cg/writer";
import type { CustomCallbackArgs, LayersModel, Logs, Scalar, Tensor } from "@tensorflow/tfjs";
import type { CaptureSummary } from "./emit-recording.js";
import type { OptimizerLike, VariableLike } from "./engine-internals.js";
import { profileInference, profileInferenceAsync } from "./profile-inference.js";
import { profileTrainStep, type TrainStepOptions } from "./profile-train-step.js";
import { StepCapture } from "./step-capture.js";
import { TfjsProfilerError } from "./tfjs-profiler-error.js";

export interface TfjsProfilerOptions {
  /** One-based step to capture; earlier steps are warm-ups, later ones run untouched. */
  captureStep: number;
  /** Trace file to write (parent directories are created). Give this or `openSession`. */
  path?: string | undefined;
  /** Opens the session for the captured step instead of a file (e.g. `TraceSession.inMemory`). */
  openSession?: ((run: ProfileRun) => TraceRecorder) | undefined;
  /** `meta.entrypoint`; default `tfjs::train_step` or `tfjs::inference_step`. */
  entrypoint?: string | undefined;
  /** Workload provenance written as `meta.tags`. */
  tags?: Readonly<Record<string, string>> | undefined;
  /** Root of the gradient facts; default `tfjs` (or the model's name for `fit`). */
  gradientRoot?: string | undefined;
  /** Free bytes beside `tf.memory().numBytes` in device-memory checkpoints; default 0. */
  freeBytes?: (() => number) | undefined;
  /** Sees profiler failures (the step itself always completes); default: `console.warn`. */
  onError?: ((error: unknown) => void) | undefined;
}

/** The outcome of the captured step. */
export interface TfjsCapture {
  /** Where the trace went (`sink.location` of the session). */
  location: string;
  summary: CaptureSummary;
}

/**
 * A training or inference loop's profiler: call `trainStep` / `inferenceStep` once per step (or pass
 * `fitCallbacks()` to `model.fit`). Exactly the configured step is captured; every other step runs with
 * no instrumentation at all.
 */
export class TfjsProfiler {
  readonly run: ProfileRun;
  readonly #options: TfjsProfilerOptions;
  readonly #gate: CaptureGate;
  #capture: TfjsCapture | undefined;
  #fitCapture: { capture: StepCapture; session: TraceRecorder } | undefined;

  private constructor(run: ProfileRun, options: TfjsProfilerOptions) {
    if (options.path === undefined && options.openSession === undefined) {
      throw new TfjsProfilerError({ code: "invalid_option", message: "give either path or openSession" });
    }
    this.run = run;
    this.#options = options;
    this.#gate = new CaptureGate(options.captureStep, () => this.#openSession());
  }

  static training(options: TfjsProfilerOptions): TfjsProfiler {
    return new TfjsProfiler(TfjsProfiler.#runFor("train", options), options);
  }

  static inference(options: TfjsProfilerOptions): TfjsProfiler {
    return new TfjsProfiler(TfjsProfiler.#runFor("infer", options), options);
  }

  static #runFor(phase: "train" | "infer", options: TfjsProfilerOptions): ProfileRun {
    const entrypoint =
      options.entrypoint ?? (phase === "train" ? "tfjs::train_step" : "tfjs::inference_step");
    let run =
      phase === "train"
        ? ProfileRun.training(entrypoint, options.captureStep, "cpu")
        : ProfileRun.inference(entrypoint, options.captureStep, "cpu");
    run = run.tag("framework", "tfjs");
    for (const [key, value] of Object.entries(options.tags ?? {})) run = run.tag(key, value);
    return run;
  }

  /** Steps begun so far. */
  get currentStep(): number {
    return this.#gate.currentStep;
  }

  /** The captured step's result once it has run. */
  get capture(): TfjsCapture | undefined {
    return this.#capture;
  }

  /** One training step (`optimizer.minimize`); profiled when it is the capture step. Returns the loss. */
  trainStep(options: Omit<TrainStepOptions, "gradientRoot" | "freeBytes">): Scalar {
    const session = this.#gate.begin();
    let profiled: ReturnType<typeof profileTrainStep>;
    try {
      profiled = profileTrainStep(session, {
        ...options,
        gradientRoot: this.#options.gradientRoot,
        freeBytes: this.#options.freeBytes,
      });
    } catch (error) {
      // The step failed: the capture already removed its hooks; close the trace with what it holds.
      this.#complete(session, undefined, undefined);
      throw error;
    }
    this.#complete(session, profiled.capture, profiled.captureError);
    return profiled.result;
  }

  /** One synchronous inference call; profiled when it is the capture step. */
  inferenceStep<T>(run: () => T): T {
    const session = this.#gate.begin();
    let profiled: ReturnType<typeof profileInference<T>>;
    try {
      profiled = profileInference(session, run, { freeBytes: this.#options.freeBytes });
    } catch (error) {
      this.#complete(session, undefined, undefined);
      throw error;
    }
    this.#complete(session, profiled.capture, profiled.captureError);
    return profiled.result;
  }

  /**
   * One inference call that awaits (`graphModel.executeAsync(inputs)`, or `await tensor.data()`
   * inside); profiled when it is the capture step, with the hooks installed until it settles.
   */
  async inferenceStepAsync<T>(run: () => Promise<T>): Promise<T> {
    const session = this.#gate.begin();
    let profiled: Awaited<ReturnType<typeof profileInferenceAsync<T>>>;
    try {
      profiled = await profileInferenceAsync(session, run, { freeBytes: this.#options.freeBytes });
    } catch (error) {
      this.#complete(session, undefined, undefined);
      throw error;
    }
    this.#complete(session, profiled.capture, profiled.captureError);
    return profiled.result;
  }

  /**
   * Callbacks for `model.fit`: each batch is one step. Prefer `fit(...)`, which also removes the
   * instrumentation when `model.fit` throws inside the captured batch.
   */
  fitCallbacks(model: LayersModel): CustomCallbackArgs {
    return {
      onBatchBegin: async () => {
        const session = this.#gate.begin();
        if (!session.isRecording) return;
        const capture = new StepCapture({
          session,
          name: "train_step",
          optimizer: model.optimizer as unknown as OptimizerLike,
          variables: model.trainableWeights.map((weight) => weight.read()) as unknown as VariableLike[],
          gradientRoot: this.#options.gradientRoot ?? model.name,
          splitGradients: true,
          ...(this.#options.freeBytes === undefined ? {} : { freeBytes: this.#options.freeBytes }),
        });
        try {
          capture.begin();
          this.#fitCapture = { capture, session };
        } catch (error) {
          this.#complete(session, undefined, error);
        }
      },
      onBatchEnd: async (_batch: number, _logs?: Logs) => {
        this.#endFitCapture();
      },
    };
  }

  /** `model.fit(x, y, args)` with `fitCallbacks` added; instrumentation is removed even if it throws. */
  async fit(
    model: LayersModel,
    x: Tensor | Tensor[],
    y: Tensor | Tensor[],
    args: Parameters<LayersModel["fit"]>[2] = {},
  ) {
    const own = this.fitCallbacks(model);
    const given = args.callbacks;
    const callbacks = given === undefined ? [own] : Array.isArray(given) ? [...given, own] : [given, own];
    try {
      return await model.fit(x, y, { ...args, callbacks: callbacks as CustomCallbackArgs[] });
    } finally {
      this.#endFitCapture();
    }
  }

  #endFitCapture(): void {
    const active = this.#fitCapture;
    if (active === undefined) return;
    this.#fitCapture = undefined;
    let summary: CaptureSummary | undefined;
    let failure: unknown;
    try {
      summary = active.capture.end();
    } catch (error) {
      failure = error;
    }
    this.#complete(active.session, summary, failure);
  }

  #complete(session: TraceRecorder, summary: CaptureSummary | undefined, failure: unknown): void {
    if (!session.isRecording) return;
    let problem = failure;
    try {
      const location = session.finish();
      if (summary !== undefined) this.#capture = { location, summary };
    } catch (error) {
      problem ??= error;
    }
    if (problem !== undefined) (this.#options.onError ?? warn)(problem);
  }

  #openSession(): TraceRecorder {
    const { openSession, path } = this.#options;
    if (openSession !== undefined) return openSession(this.run);
    return TraceSession.open(path as string, this.run);
  }
}

function warn(error: unknown): void {
  console.warn("@cg/tfjs: the step ran, but its capture failed:", error);
}
