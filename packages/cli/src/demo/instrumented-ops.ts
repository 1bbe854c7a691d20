import { categoryForStep } from "@cg/memory";
import type { ExecutionStep, MemoryCategory } from "@cg/schema/core";
import type { SpanHandle, TraceRecorder } from "@cg/writer";

/** A dense f32 tensor of the demo with its trace identity. */
export interface TrackedTensor {
  id: string;
  data: Float32Array;
  shape: number[];
  category: MemoryCategory;
}

const DTYPE = "f32";

/**
 * Runs kernels and records each as an `op` with its output `tensor` and an explicit `memory`
 * alloc; `free` records the release. The category comes from the current step (spec §15.5).
 * With the no-op recorder of a warm-up step, this only computes.
 */
export class InstrumentedOps {
  readonly #trace: TraceRecorder;
  readonly #device: string;
  #span: SpanHandle | string;
  #step: ExecutionStep | undefined;
  #nextId = 0;

  constructor(trace: TraceRecorder, device: string) {
    this.#trace = trace;
    this.#device = device;
    this.#span = trace.currentSpanId();
  }

  /** Attributes the following ops to `span`, tagged with its step. */
  enter(span: SpanHandle, step: ExecutionStep | undefined): void {
    this.#span = span;
    this.#step = step;
  }

  /** Declares a long-lived tensor (a parameter or optimizer state) without allocating it. */
  declare(
    id: string,
    data: Float32Array,
    shape: number[],
    category: MemoryCategory,
    requiresGrad: boolean,
  ): TrackedTensor {
    this.#trace.recordTensor(this.#span, {
      tensorId: id,
      shape,
      dtype: DTYPE,
      device: this.#device,
      requiresGrad,
      category,
    });
    return { id, data, shape, category };
  }

  run(
    opName: string,
    inputs: readonly TrackedTensor[],
    shape: number[],
    compute: () => Float32Array,
  ): TrackedTensor {
    const start = this.#trace.elapsedNs();
    const data = compute();
    const duration = Math.max(0, this.#trace.elapsedNs() - start);
    this.#nextId += 1;
    const output: TrackedTensor = {
      id: `t${this.#nextId}`,
      data,
      shape,
      category: categoryForStep(this.#step, false),
    };
    this.#trace.recordOp(this.#span, {
      opName,
      inputs: inputs.map((input) => input.id),
      output: output.id,
      shape,
      dtype: DTYPE,
      device: this.#device,
      durationNs: duration,
      timestampNs: start,
      inputStorageBytes: inputs.reduce((sum, input) => sum + input.data.byteLength, 0),
    });
    this.#trace.recordMemoryAlloc(this.#span, {
      tensorId: output.id,
      device: this.#device,
      bytes: data.byteLength,
      dtype: DTYPE,
      category: output.category,
      timestampNs: start,
      opName,
      shape,
    });
    this.#trace.recordTensor(this.#span, {
      tensorId: output.id,
      shape,
      dtype: DTYPE,
      device: this.#device,
      requiresGrad: false,
      category: output.category,
    });
    return output;
  }

  /** An in-place update of existing tensors: an op without a new allocation. */
  update(opName: string, target: TrackedTensor, inputs: readonly TrackedTensor[], compute: () => void): void {
    const start = this.#trace.elapsedNs();
    compute();
    const duration = Math.max(0, this.#trace.elapsedNs() - start);
    this.#trace.recordOp(this.#span, {
      opName,
      inputs: [target, ...inputs].map((input) => input.id),
      output: target.id,
      shape: target.shape,
      dtype: DTYPE,
      device: this.#device,
      durationNs: duration,
      timestampNs: start,
      inputStorageBytes: [target, ...inputs].reduce((sum, input) => sum + input.data.byteLength, 0),
    });
  }

  free(...tensors: TrackedTensor[]): void {
    for (const tensor of tensors) {
      this.#trace.recordMemoryFree(this.#span, {
        tensorId: tensor.id,
        device: this.#device,
        bytes: tensor.data.byteLength,
        dtype: DTYPE,
        category: tensor.category,
        shape: tensor.shape,
      });
    }
  }
}
