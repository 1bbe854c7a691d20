import type { ExecutionStep } from "@cg/schema/core";
import type { DataInfo, KernelResult, TensorLike } from "./engine-internals.js";

// What the hooks collect while a step runs: raw references and clock readings only, so the hot path
// stays a few pushes per kernel. Everything is turned into trace events after the measured region.

export interface KernelCall {
  readonly kernelName: string;
  readonly inputs: object;
  readonly outputs: KernelResult;
  readonly spanId: string;
  readonly startNs: number;
  readonly durationNs: number;
}

export interface Allocation {
  readonly tensor: TensorLike;
  readonly info: DataInfo;
  readonly spanId: string;
  readonly step: ExecutionStep | undefined;
  readonly opName: string | undefined;
  readonly timestampNs: number;
  freeSpanId?: string;
  freeTimestampNs?: number;
}

export interface MemoryMoment {
  readonly action: "alloc" | "free";
  readonly allocation: Allocation;
}

export interface DeviceMemoryCheckpoint {
  readonly timestampNs: number;
  readonly usedBytes: number;
}

export interface GradientObservation {
  readonly name: string;
  readonly tensor: TensorLike | undefined;
  /** The gradient's values, read when the optimizer received it (zero-copy on the CPU backend). */
  readonly values: ArrayLike<number> | undefined;
  readonly spanId: string;
}

export class StepRecording {
  readonly kernelCalls: KernelCall[] = [];
  readonly memory: MemoryMoment[] = [];
  /** Live allocations made during the step, by data buffer identity. */
  readonly liveAllocations = new Map<object, Allocation>();
  readonly deviceMemory: DeviceMemoryCheckpoint[] = [];
  gradients: GradientObservation[] | undefined;
  /** Buffers released during the step that were allocated before it (not written: no alloc to pair). */
  releasesOfEarlierBuffers = 0;
}
