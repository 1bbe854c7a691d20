import { categoryForStep } from "@cg/memory";
import type { MemoryCategory } from "@cg/schema/core";
import type { MemoryRecord, TraceRecorder } from "@cg/writer";
import { tfjsStorageBytes, traceDtypeLabel } from "./dtype-label.js";
import type { TensorLike, VariableLike } from "./engine-internals.js";
import { gradientFact } from "./gradient-fact.js";
import type { Allocation, KernelCall, StepRecording } from "./step-recording.js";
import { tensorLabel } from "./tensor-label.js";

export interface EmitContext {
  device: string;
  gradientRoot: string;
  variables: readonly VariableLike[];
  registeredVariables: readonly VariableLike[];
  measuredSpanId: string;
  backwardSpanId: string | undefined;
  freeBytes: (() => number) | undefined;
}

/** What one capture wrote. */
export interface CaptureSummary {
  ops: number;
  allocations: number;
  frees: number;
  tensors: number;
  gradients: number;
  deviceMemorySamples: number;
  /** Buffers allocated before the step and released during it: no `free` is written for them. */
  releasesOfEarlierBuffers: number;
}

/** Writes a finished step recording into the session, after the measured region has ended. */
export function emitRecording(
  session: TraceRecorder,
  recording: StepRecording,
  context: EmitContext,
): CaptureSummary {
  const summary: CaptureSummary = {
    ops: 0,
    allocations: 0,
    frees: 0,
    tensors: 0,
    gradients: 0,
    deviceMemorySamples: 0,
    releasesOfEarlierBuffers: recording.releasesOfEarlierBuffers,
  };
  const { device } = context;

  for (const call of recording.kernelCalls) {
    emitOp(session, call, device);
    summary.ops++;
  }

  const categories = resolveCategories(recording, context);
  for (const { action, allocation } of recording.memory) {
    const record = memoryRecord(allocation, device, categories.get(allocation) ?? "other", action);
    if (action === "alloc") {
      session.recordMemoryAlloc(allocation.spanId, record);
      summary.allocations++;
    } else {
      session.recordMemoryFree(allocation.freeSpanId ?? allocation.spanId, record);
      summary.frees++;
    }
  }

  const freeBytes = context.freeBytes?.() ?? 0;
  for (const checkpoint of recording.deviceMemory) {
    session.recordDeviceMemory(device, checkpoint.usedBytes, freeBytes, checkpoint.timestampNs);
    summary.deviceMemorySamples++;
  }

  for (const variable of context.variables) {
    emitTensor(session, context.measuredSpanId, variable, device, variable.trainable, "parameter");
    summary.tensors++;
  }
  for (const variable of categories.optimizerVariables) {
    emitTensor(session, context.measuredSpanId, variable, device, false, "optimizer");
    summary.tensors++;
  }

  const observations = recording.gradients;
  if (observations !== undefined) {
    const observed = new Map(observations.map((observation) => [observation.name, observation]));
    const names = context.variables.map((variable) => variable.name);
    for (const name of observed.keys()) if (!names.includes(name)) names.push(name);
    for (const name of names) {
      const observation = observed.get(name);
      if (observation?.tensor !== undefined) {
        const spanId = context.backwardSpanId ?? observation.spanId;
        emitTensor(session, spanId, observation.tensor, device, false, "gradient");
        summary.tensors++;
      }
      const fact = gradientFact(observation?.tensor === undefined ? undefined : observation.values);
      if (fact.norm === undefined) session.recordGradient(context.gradientRoot, name, fact.state);
      else session.recordGradient(context.gradientRoot, name, fact.state, fact.norm);
      summary.gradients++;
    }
  }
  return summary;
}

function emitOp(session: TraceRecorder, call: KernelCall, device: string): void {
  const outputs = Array.isArray(call.outputs) ? call.outputs : [call.outputs];
  const inputIds: string[] = [];
  let inputStorageBytes = 0;
  let firstInput: TensorLike | undefined;
  for (const input of Object.values(call.inputs) as Array<TensorLike | null | undefined>) {
    if (input == null || typeof input.id !== "number") continue;
    firstInput ??= input;
    inputIds.push(tensorLabel(input.id));
    inputStorageBytes += tfjsStorageBytes(input.size, input.dtype);
  }
  let storageBytes = 0;
  for (const output of outputs) storageBytes += tfjsStorageBytes(output.size, output.dtype);
  const first = outputs[0];
  session.recordOp(call.spanId, {
    opName: call.kernelName,
    inputs: inputIds,
    output: first === undefined ? undefined : tensorLabel(first.id),
    shape: first?.shape ?? [],
    dtype: traceDtypeLabel(first?.dtype ?? firstInput?.dtype ?? "float32"),
    device,
    durationNs: call.durationNs,
    timestampNs: call.startNs,
    storageBytes,
    inputStorageBytes,
  });
}

function emitTensor(
  session: TraceRecorder,
  spanId: string,
  tensor: TensorLike,
  device: string,
  requiresGrad: boolean,
  category: MemoryCategory,
): void {
  session.recordTensor(spanId, {
    tensorId: tensorLabel(tensor.id),
    shape: tensor.shape,
    dtype: traceDtypeLabel(tensor.dtype),
    device,
    requiresGrad,
    storageBytes: tfjsStorageBytes(tensor.size, tensor.dtype),
    category,
  });
}

function memoryRecord(
  allocation: Allocation,
  device: string,
  category: MemoryCategory,
  action: "alloc" | "free",
): MemoryRecord {
  const { tensor } = allocation;
  return {
    tensorId: tensorLabel(tensor.id),
    device,
    bytes: allocation.info.bytes,
    dtype: traceDtypeLabel(tensor.dtype),
    category,
    timestampNs:
      action === "alloc" ? allocation.timestampNs : (allocation.freeTimestampNs ?? allocation.timestampNs),
    opName: allocation.opName,
    shape: tensor.shape,
  };
}

interface ResolvedCategories extends Map<Allocation, MemoryCategory> {
  optimizerVariables: VariableLike[];
}

/**
 * A buffer's category is decided by where it ended up: one that now backs a trainable variable is a
 * `parameter`, one that backs another variable written in the optimizer step is optimizer state;
 * everything else follows the step it was allocated in (§15.5).
 */
function resolveCategories(recording: StepRecording, context: EmitContext): ResolvedCategories {
  const categories = new Map<Allocation, MemoryCategory>() as ResolvedCategories;
  categories.optimizerVariables = [];
  for (const { action, allocation } of recording.memory) {
    if (action === "alloc") categories.set(allocation, categoryForStep(allocation.step, false));
  }
  for (const variable of context.registeredVariables) {
    const allocation = recording.liveAllocations.get(variable.dataId);
    if (allocation === undefined) continue;
    if (variable.trainable) {
      categories.set(allocation, "parameter");
    } else if (allocation.step === "optimizer") {
      categories.set(allocation, "optimizer");
      categories.optimizerVariables.push(variable);
    }
  }
  return categories;
}
