import { storageBytes } from "@cg/memory";
import type { SpanHandle, TraceRecorder } from "@cg/writer";
import { deviceForProvider } from "./device-label.js";
import { traceDtype } from "./dtype-label.js";
import type { OnnxGraph } from "./onnx-graph.js";
import type { OrtNodeEvent, OrtProfileRun, OrtTypeShape } from "./ort-profile-run.js";
import type { OrtTimeline } from "./ort-timeline.js";
import type { ReplayClock } from "./replay-clock.js";
import { buildScopeTree, type ScopeItem } from "./scope-tree.js";

/** A model input or output as the caller saw it, written as a `tensor` checkpoint. */
export interface TensorCheckpoint {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly device: string;
}

export interface OrtRunEmission {
  readonly trace: TraceRecorder;
  readonly clock: ReplayClock;
  readonly run: OrtProfileRun;
  /** Where ONNX Runtime's microseconds lie on the trace clock (exact, checked). */
  readonly timeline: OrtTimeline;
  /** The `session.run` call as measured on the trace clock; absent when importing (the run is the measurement). */
  readonly measured?: { readonly name: string; readonly startNs: number; readonly endNs: number } | undefined;
  /** A timed call between the measured span and `model_run` (the `session.run` inside a pipeline call). */
  readonly call?: { readonly name: string; readonly startNs: number; readonly endNs: number } | undefined;
  /** The optimized model's graph, for tensor names and parameters. */
  readonly graph?: OnnxGraph | undefined;
  readonly tensors?: readonly TensorCheckpoint[] | undefined;
}

/** What was written. */
export interface EmissionSummary {
  readonly ops: number;
  readonly spans: number;
  readonly memoryEvents: number;
  readonly deviceMemorySamples: number;
  readonly tensors: number;
  /** Node events of the run outside its `model_run` window, written outside it (the trace is then untrusted). */
  readonly outOfWindowNodes: number;
  /** ONNX Runtime's `model_run` duration (µs × 1000). */
  readonly modelRunNs: number;
  /** Where the measured span ended on the trace clock. */
  readonly measuredEndNs: number;
}

interface Counters {
  ops: number;
  spans: number;
  memoryEvents: number;
  deviceMemorySamples: number;
}

/**
 * Writes one ONNX Runtime run into an open trace: the measured span, `model_run` (step `forward`)
 * › the executor › execution-provider partitions and name scopes (`module` spans) › one `op`-kind
 * span per executed node holding its `op`, its memory evidence and an allocator checkpoint.
 * Spans are written at ONNX Runtime's instants by pinning the replay clock.
 */
export function emitOrtRun(emission: OrtRunEmission): EmissionSummary {
  const { trace, clock, run, timeline } = emission;
  const counters: Counters = { ops: 0, spans: 0, memoryEvents: 0, deviceMemorySamples: 0 };
  const ns = (us: bigint): number => timeline.ns(us);
  const tree = buildScopeTree(run.nodes);
  const nodesStartUs = tree.length === 0 ? run.modelRun.startUs : (tree[0] as ScopeItem).startUs;
  let nodesEndUs = run.modelRun.startUs;
  for (const item of tree) nodesEndUs = max(nodesEndUs, item.endUs);
  const executor = run.executor;
  const executorStartUs = executor === undefined ? nodesStartUs : min(executor.startUs, nodesStartUs);
  const executorEndUs =
    executor === undefined ? nodesEndUs : max(executor.startUs + executor.durationUs, nodesEndUs);
  const modelRunStartUs = min(run.modelRun.startUs, executorStartUs);
  const modelRunEndUs = max(run.modelRun.startUs + run.modelRun.durationUs, executorEndUs);
  const measured = emission.measured;
  const call = emission.call;
  const measuredEndNs =
    measured === undefined
      ? ns(modelRunEndUs)
      : Math.max(measured.endNs, call?.endNs ?? 0, ns(modelRunEndUs));

  const open = (atNs: number, begin: () => SpanHandle): SpanHandle => {
    clock.at(atNs);
    counters.spans++;
    return begin();
  };
  const close = (span: SpanHandle, atNs: number): void => {
    clock.at(atNs);
    span.end();
  };

  const emitter = new NodeEmitter(trace, emission.graph, counters, timeline);
  try {
    let measuredSpan: SpanHandle;
    let callSpan: SpanHandle | undefined;
    let modelRunSpan: SpanHandle;
    if (measured === undefined) {
      measuredSpan = open(ns(modelRunStartUs), () => trace.beginMeasurement("model_run"));
      modelRunSpan = measuredSpan;
    } else {
      measuredSpan = open(measured.startNs, () => trace.beginMeasurement(measured.name));
      if (call !== undefined) callSpan = open(call.startNs, () => trace.beginSpan(call.name));
      modelRunSpan = open(ns(modelRunStartUs), () => trace.beginStepSpan("model_run", "forward"));
    }
    const executorSpan =
      executor === undefined ? undefined : open(ns(executorStartUs), () => trace.beginSpan(executor.name));
    emitter.checkpointBefore(run.nodes);
    const walk = (items: readonly ScopeItem[]): void => {
      for (const item of items) {
        if (item.kind === "node") {
          const span = open(ns(item.startUs), () => trace.beginSpan(item.node.nodeName, "op"));
          emitter.node(span, item.node);
          close(span, ns(item.endUs));
        } else {
          const span = open(ns(item.startUs), () => trace.beginSpan(item.name, "module"));
          walk(item.children);
          close(span, ns(item.endUs));
        }
      }
    };
    walk(tree);
    if (executorSpan !== undefined) close(executorSpan, ns(executorEndUs));
    // Written where ONNX Runtime put them, in the run they were logged with: outside its span.
    for (const node of run.outOfWindow) {
      const span = open(ns(node.startUs), () => trace.beginSpan(node.nodeName, "op"));
      emitter.node(span, node);
      close(span, ns(node.startUs + node.durationUs));
    }
    if (modelRunSpan !== measuredSpan) close(modelRunSpan, ns(modelRunEndUs));
    if (callSpan !== undefined && call !== undefined)
      close(callSpan, Math.max(call.endNs, ns(modelRunEndUs)));
    for (const tensor of emission.tensors ?? []) {
      trace.recordTensor(callSpan ?? measuredSpan, {
        tensorId: tensor.name,
        shape: tensor.shape,
        dtype: tensor.dtype,
        device: tensor.device,
        category: "activation",
      });
    }
    close(measuredSpan, measuredEndNs);
  } finally {
    clock.release();
  }
  return {
    ...counters,
    tensors: emission.tensors?.length ?? 0,
    outOfWindowNodes: run.outOfWindow.length,
    modelRunNs: timeline.durationNs(run.modelRun.durationUs),
    measuredEndNs,
  };
}

/** Writes one node's `op`, its memory evidence and its allocator checkpoint. */
class NodeEmitter {
  readonly #trace: TraceRecorder;
  readonly #graph: OnnxGraph | undefined;
  readonly #counters: Counters;
  readonly #timeline: OrtTimeline;
  readonly #parametersSeen = new Set<string>();
  readonly #outputsSeen = new Map<string, number>();

  constructor(trace: TraceRecorder, graph: OnnxGraph | undefined, counters: Counters, timeline: OrtTimeline) {
    this.#trace = trace;
    this.#graph = graph;
    this.#counters = counters;
    this.#timeline = timeline;
  }

  /** The allocator's state before the first node: its figures after the node, less the node's deltas. */
  checkpointBefore(nodes: readonly OrtNodeEvent[]): void {
    let first: OrtNodeEvent | undefined;
    for (const node of nodes) if (first === undefined || node.startUs < first.startUs) first = node;
    const figures = first?.allocator;
    if (first === undefined || figures === undefined) return;
    const used = Math.max(0, figures.bytesInUse - figures.inUseDelta);
    const held =
      figures.arenaHeld === undefined
        ? undefined
        : Math.max(0, figures.arenaHeld - (figures.arenaHeldDelta ?? 0));
    this.#deviceMemory(deviceForProvider(first.provider), used, held, this.#timeline.ns(first.startUs));
  }

  node(span: SpanHandle, node: OrtNodeEvent): void {
    const device = deviceForProvider(node.provider);
    const graphNode = this.#graph?.nodes.get(node.nodeName);
    const first = node.outputs[0];
    const timestampNs = this.#timeline.ns(node.startUs);
    this.#trace.recordOp(span, {
      opName: node.opType,
      inputs: graphNode?.inputs ?? [],
      output: graphNode?.outputs[0],
      shape: first?.shape ?? [],
      dtype: first === undefined ? "unknown" : traceDtype(first.ortType),
      device,
      durationNs: this.#timeline.durationNs(node.durationUs),
      timestampNs,
      storageBytes: node.outputBytes,
      inputStorageBytes: sumBytes(node.inputs),
    });
    this.#counters.ops++;
    this.#parameters(span, node, device, timestampNs, graphNode?.inputs);
    for (const [index, output] of node.outputs.entries()) {
      const dtype = traceDtype(output.ortType);
      const bytes =
        node.outputs.length === 1 && node.outputBytes !== undefined
          ? node.outputBytes
          : storageBytes(output.shape, dtype);
      this.#trace.recordMemoryAlloc(span, {
        tensorId: this.#outputId(graphNode?.outputs[index] ?? `${node.nodeName}:${index}`),
        device,
        bytes,
        dtype,
        shape: output.shape,
        category: "activation",
        opName: node.opType,
        timestampNs,
      });
      this.#counters.memoryEvents++;
    }
    const figures = node.allocator;
    if (figures !== undefined) {
      this.#deviceMemory(
        device,
        figures.bytesInUse,
        figures.arenaHeld,
        this.#timeline.ns(node.startUs + node.durationUs),
      );
    }
  }

  // Initializers are allocated when the session is created and live as long as it does: the run
  // shows them in use (first use) but no free, so none is written.
  #parameters(
    span: SpanHandle,
    node: OrtNodeEvent,
    device: string,
    timestampNs: number,
    inputs: readonly string[] | undefined,
  ): void {
    const graph = this.#graph;
    if (graph !== undefined && inputs !== undefined) {
      for (const name of inputs) {
        const initializer = graph.initializers.get(name);
        if (initializer === undefined || this.#parametersSeen.has(name)) continue;
        this.#parametersSeen.add(name);
        const shape = initializer.shape.map((dim) => dim ?? 0);
        this.#trace.recordMemoryAlloc(span, {
          tensorId: name,
          device,
          bytes: storageBytes(shape, initializer.dtype),
          dtype: initializer.dtype,
          shape,
          category: "parameter",
          opName: node.opType,
          timestampNs,
        });
        this.#counters.memoryEvents++;
      }
      return;
    }
    const bytes = node.parameterBytes;
    if (bytes === undefined || bytes === 0) return;
    this.#trace.recordMemoryAlloc(span, {
      tensorId: `${node.nodeName}:parameters`,
      device,
      bytes,
      dtype: "u8",
      shape: [bytes],
      category: "parameter",
      opName: node.opType,
      timestampNs,
    });
    this.#counters.memoryEvents++;
  }

  // A tensor name written twice (a node that runs in a loop body would) gets a suffix, so every
  // allocation has its own id.
  #outputId(name: string): string {
    const seen = this.#outputsSeen.get(name) ?? 0;
    this.#outputsSeen.set(name, seen + 1);
    return seen === 0 ? name : `${name}#${seen + 1}`;
  }

  // The arena's figures: bytes in use, and what it holds beyond them as free (its capacity is what it holds).
  #deviceMemory(device: string, usedBytes: number, heldBytes: number | undefined, timestampNs: number): void {
    if (heldBytes === undefined) {
      this.#trace.recordDeviceMemory(device, usedBytes, 0, timestampNs);
    } else {
      this.#trace.recordDeviceMemory(
        device,
        usedBytes,
        Math.max(0, heldBytes - usedBytes),
        timestampNs,
        heldBytes,
      );
    }
    this.#counters.deviceMemorySamples++;
  }
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function sumBytes(values: readonly OrtTypeShape[]): number {
  let total = 0;
  for (const value of values) total += Number(storageBytes(value.shape, traceDtype(value.ortType)));
  return total;
}
