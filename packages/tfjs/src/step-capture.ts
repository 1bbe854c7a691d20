import type { ExecutionStep } from "@cg/schema/core";
import type { SpanHandle, TraceRecorder } from "@cg/writer";
import { engine as tfjsEngine } from "@tensorflow/tfjs";
import { type CaptureSummary, emitRecording } from "./emit-recording.js";
import type {
  EngineInternals,
  KernelResult,
  OptimizerLike,
  TensorLike,
  VariableGradients,
  VariableLike,
} from "./engine-internals.js";
import { PatchSet } from "./patch-set.js";
import { StepRecording } from "./step-recording.js";
import { TfjsProfilerError } from "./tfjs-profiler-error.js";

export interface StepCaptureOptions {
  session: TraceRecorder;
  /** Name of the measured region. */
  name: string;
  /** Device label written on every event; the CPU backend is `cpu`. */
  device?: string;
  /** Optimizer whose `applyGradients` becomes the `optimizer` step span and yields the gradients. */
  optimizer?: OptimizerLike | undefined;
  /** Trainable variables expected to receive gradients (one gradient fact each). */
  variables?: readonly VariableLike[] | undefined;
  /** Parameter-store root of the gradient facts. */
  gradientRoot?: string;
  /** Split `engine.gradients` (used by `minimize`, `variableGrads`, `grads`) into forward and backward spans. */
  splitGradients?: boolean;
  /** Bytes reported as free beside `tf.memory().numBytes` in device-memory checkpoints; 0 by default. */
  freeBytes?: () => number;
}

interface OpenSpan {
  readonly guard: SpanHandle;
  readonly step: ExecutionStep | undefined;
}

let activeCapture: StepCapture | undefined;

/**
 * Instruments the tfjs engine for one step: while begun, every kernel, buffer allocation and release,
 * gradient computation and optimizer update is recorded; `end()` restores everything and writes the
 * recording into the session. Only one capture can be active at a time.
 */
export class StepCapture {
  readonly #options: StepCaptureOptions;
  readonly #session: TraceRecorder;
  readonly #engine: EngineInternals;
  readonly #patches = new PatchSet();
  readonly #recording = new StepRecording();
  readonly #spans: OpenSpan[] = [];
  #currentSpanId = "";
  #currentStep: ExecutionStep | undefined;
  #lastBackwardSpanId: string | undefined;
  #kernelNames: string[] = [];
  #gradientDepth = 0;
  #state: "new" | "active" | "ended" = "new";

  constructor(options: StepCaptureOptions) {
    this.#options = options;
    this.#session = options.session;
    this.#engine = tfjsEngine() as unknown as EngineInternals;
  }

  static get active(): boolean {
    return activeCapture !== undefined;
  }

  /** Opens the measured region and installs the hooks. */
  begin(): void {
    if (this.#state !== "new") {
      throw new TfjsProfilerError({
        code: "capture_active",
        message: "a StepCapture can be begun only once",
      });
    }
    if (activeCapture !== undefined) {
      throw new TfjsProfilerError({
        code: "capture_active",
        message: "another tfjs step capture is already active; captures cannot overlap",
      });
    }
    activeCapture = this;
    this.#state = "active";
    try {
      this.#pushSpan(this.#session.beginMeasurement(this.#options.name), undefined);
      this.#checkpointDeviceMemory();
      this.#install();
    } catch (error) {
      this.#teardown();
      throw error;
    }
  }

  /** Opens a step span nested in the current one (forward, backward or optimizer). */
  beginStep(step: ExecutionStep, name: string = step): void {
    if (this.#state !== "active") return;
    this.#pushSpan(this.#session.beginStepSpan(name, step, "function"), step);
    if (step === "backward") this.#lastBackwardSpanId = this.#currentSpanId;
  }

  /** Ends the innermost step span. */
  endStep(): void {
    if (this.#state !== "active" || this.#spans.length <= 1) return;
    this.#popSpan();
    this.#checkpointDeviceMemory();
  }

  /**
   * Ends every open span (innermost first), removes all hooks and writes the recording. Safe to call
   * after a failed step; calling it again returns the same summary.
   */
  end(): CaptureSummary {
    if (this.#state === "ended" && this.#summary !== undefined) return this.#summary;
    if (this.#state !== "active") {
      throw new TfjsProfilerError({ code: "capture_not_active", message: "the capture was never begun" });
    }
    this.#teardown();
    this.#summary = emitRecording(this.#session, this.#recording, {
      device: this.#options.device ?? "cpu",
      gradientRoot: this.#options.gradientRoot ?? "tfjs",
      variables: this.#options.variables ?? [],
      registeredVariables: Object.values(this.#engine.state.registeredVariables),
      measuredSpanId: this.#measuredSpanId ?? "",
      backwardSpanId: this.#lastBackwardSpanId,
      freeBytes: this.#options.freeBytes,
    });
    return this.#summary;
  }

  #summary: CaptureSummary | undefined;
  #measuredSpanId: string | undefined;

  #teardown(): void {
    this.#state = "ended";
    let firstError: unknown;
    let failed = false;
    try {
      this.#patches.restoreAll();
    } catch (error) {
      failed = true;
      firstError = error;
    }
    while (this.#spans.length > 0) {
      try {
        this.#popSpan();
        if (this.#spans.length === 0) this.#checkpointDeviceMemory();
      } catch (error) {
        if (!failed) firstError = error;
        failed = true;
      }
    }
    if (activeCapture === this) activeCapture = undefined;
    if (failed) throw firstError;
  }

  #pushSpan(guard: SpanHandle, step: ExecutionStep | undefined): void {
    if (this.#spans.length === 0) this.#measuredSpanId = guard.id;
    this.#spans.push({ guard, step });
    this.#currentSpanId = guard.id;
    this.#currentStep = step;
  }

  #popSpan(): void {
    const span = this.#spans.pop();
    const parent = this.#spans[this.#spans.length - 1];
    this.#currentSpanId = parent?.guard.id ?? this.#measuredSpanId ?? "";
    this.#currentStep = parent?.step;
    span?.guard.end();
  }

  #now(): number {
    return Number(this.#session.elapsedNs());
  }

  #checkpointDeviceMemory(): void {
    this.#recording.deviceMemory.push({ timestampNs: this.#now(), usedBytes: this.#engine.state.numBytes });
  }

  #install(): void {
    const capture = this;
    const recording = this.#recording;
    const engine = this.#engine;
    const patches = this.#patches;

    const runKernel = engine.runKernel;
    patches.replace(engine, "runKernel", function (this: EngineInternals, kernelName, inputs, attrs) {
      const spanId = capture.#currentSpanId;
      capture.#kernelNames.push(kernelName);
      const startNs = capture.#now();
      let outputs: KernelResult;
      try {
        outputs = runKernel.call(this, kernelName, inputs, attrs);
      } finally {
        capture.#kernelNames.pop();
      }
      const durationNs = capture.#now() - startNs;
      recording.kernelCalls.push({ kernelName, inputs, outputs, spanId, startNs, durationNs });
      return outputs;
    });

    const trackTensor = engine.trackTensor;
    patches.replace(engine, "trackTensor", function (this: EngineInternals, tensor, backend) {
      const isNewBuffer = !this.state.tensorInfo.has(tensor.dataId);
      trackTensor.call(this, tensor, backend);
      if (!isNewBuffer) return;
      const info = this.state.tensorInfo.get(tensor.dataId);
      if (info === undefined) return;
      const allocation = {
        tensor,
        info,
        spanId: capture.#currentSpanId,
        step: capture.#currentStep,
        opName: capture.#kernelNames[capture.#kernelNames.length - 1],
        timestampNs: capture.#now(),
      };
      recording.liveAllocations.set(tensor.dataId, allocation);
      recording.memory.push({ action: "alloc", allocation });
    });

    const removeDataId = engine.removeDataId;
    patches.replace(engine, "removeDataId", function (this: EngineInternals, dataId, backend) {
      const wasTracked = this.state.tensorInfo.has(dataId);
      removeDataId.call(this, dataId, backend);
      if (!wasTracked || this.state.tensorInfo.has(dataId)) return;
      const allocation = recording.liveAllocations.get(dataId);
      if (allocation === undefined) {
        recording.releasesOfEarlierBuffers++;
        return;
      }
      recording.liveAllocations.delete(dataId);
      allocation.freeSpanId = capture.#currentSpanId;
      allocation.freeTimestampNs = capture.#now();
      recording.memory.push({ action: "free", allocation });
    });

    if (this.#options.splitGradients !== false) this.#installGradientSplit();
    const optimizer = this.#options.optimizer;
    if (optimizer !== undefined) this.#installOptimizerHook(optimizer);
  }

  #installGradientSplit(): void {
    const capture = this;
    const gradients = this.#engine.gradients;
    this.#patches.replace(
      this.#engine,
      "gradients",
      function (this: EngineInternals, f, xs, dy, allowNoGradients) {
        // Higher-order gradients stay inside the outer backward span.
        if (capture.#gradientDepth > 0) return gradients.call(this, f, xs, dy, allowNoGradients);
        capture.#gradientDepth++;
        let inBackward = false;
        const forward = (): TensorLike => {
          capture.beginStep("forward");
          let loss: TensorLike;
          try {
            loss = f();
          } finally {
            capture.endStep();
          }
          capture.beginStep("backward");
          inBackward = true;
          return loss;
        };
        try {
          return gradients.call(this, forward, xs, dy, allowNoGradients);
        } finally {
          capture.#gradientDepth--;
          if (inBackward) capture.endStep();
        }
      },
    );
  }

  #installOptimizerHook(optimizer: OptimizerLike): void {
    const capture = this;
    const applyGradients = optimizer.applyGradients;
    this.#patches.replace(optimizer, "applyGradients", function (this: OptimizerLike, variableGradients) {
      capture.#observeGradients(variableGradients);
      capture.beginStep("optimizer");
      try {
        applyGradients.call(this, variableGradients);
      } finally {
        capture.endStep();
      }
    });
  }

  #observeGradients(variableGradients: VariableGradients): void {
    const entries = Array.isArray(variableGradients)
      ? variableGradients.map((entry) => [entry.name, entry.tensor] as const)
      : Object.entries(variableGradients);
    if (this.#recording.gradients === undefined) this.#recording.gradients = [];
    const observations = this.#recording.gradients;
    for (const [name, tensor] of entries) {
      let values: ArrayLike<number> | undefined;
      if (tensor != null) {
        try {
          const data = tensor.dataSync();
          values = Array.isArray(data) ? undefined : (data as ArrayLike<number>);
        } catch {
          // A gradient that cannot be read (already disposed) is left out rather than failing the step.
          continue;
        }
      }
      observations.push({ name, tensor: tensor ?? undefined, values, spanId: this.#currentSpanId });
    }
  }
}
