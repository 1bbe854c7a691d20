/** One input or output of a node as the profile lists it: ONNX Runtime's type name and the shape. */
export interface OrtTypeShape {
  /** ONNX Runtime's element type name, e.g. `float`, `int64`, `MLFloat16`. */
  readonly ortType: string;
  readonly shape: readonly number[];
}

/** The allocator figures ONNX Runtime attaches to a node event (absent when the allocator has no stats). */
export interface OrtAllocatorFigures {
  /** Bytes in use in the arena after the node ran. */
  readonly bytesInUse: number;
  /** Change of the in-use bytes over the node. */
  readonly inUseDelta: number;
  /** Bytes the arena holds (reserved from the system) after the node ran. */
  readonly arenaHeld: number | undefined;
  readonly arenaHeldDelta: number | undefined;
  readonly inUsePeak: number | undefined;
}

/** One executed node of a run (`<node>_kernel_time`, cat `Node`). Times are ONNX Runtime's whole µs, exact (u64). */
export interface OrtNodeEvent {
  /** The node's name in the optimized graph (the event name without `_kernel_time`). */
  readonly nodeName: string;
  /** The ONNX op type (`MatMul`, `FusedGemm`, …). */
  readonly opType: string;
  readonly provider: string;
  readonly nodeIndex: number | undefined;
  readonly startUs: bigint;
  readonly durationUs: bigint;
  readonly inputs: readonly OrtTypeShape[];
  readonly outputs: readonly OrtTypeShape[];
  readonly outputBytes: number | undefined;
  readonly activationBytes: number | undefined;
  readonly parameterBytes: number | undefined;
  readonly allocator: OrtAllocatorFigures | undefined;
  /** Line of the profile file the event was read from. */
  readonly line: number;
}

/** An interval ONNX Runtime recorded (whole µs since its profiler started, exact). */
export interface OrtInterval {
  readonly startUs: bigint;
  readonly durationUs: bigint;
  /** Line of the profile file the event was read from. */
  readonly line: number;
}

/** One `session.run` of a profile: its `model_run` event, the executor event and the nodes it executed. */
export interface OrtProfileRun {
  /** One-based index of the run in the profile. */
  readonly index: number;
  /** How many runs the profile holds (all of them were read to find this one). */
  readonly runCount: number;
  readonly modelRun: OrtInterval;
  /** `SequentialExecutor::Execute` (or another executor's event) inside the run, when written. */
  readonly executor: (OrtInterval & { readonly name: string }) | undefined;
  /** Executed nodes in the order ONNX Runtime wrote them (completion order). */
  readonly nodes: readonly OrtNodeEvent[];
  /**
   * Node events written among the run's events whose start lies outside its `model_run` interval
   * (a concurrent run, a clock jump). They are written to the trace where ONNX Runtime put them,
   * outside `model_run`, so its health says the run's structure does not hold.
   */
  readonly outOfWindow: readonly OrtNodeEvent[];
  /**
   * Node events after the profile's last `model_run`: no run closes them (the profile ended
   * mid-run), so no trace holds them. Reported, with the tag `ort_unassigned_node_events`.
   */
  readonly unassignedNodes: number;
  /** The `pid` ONNX Runtime wrote. */
  readonly pid: number | undefined;
}
