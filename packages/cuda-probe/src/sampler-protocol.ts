// What the owner and the sampler worker share: the worker's start data and a control block.
import type { ClockOrigin } from "@cg/clock";
import type { NvmlFailure } from "./nvml-session.js";

export interface SamplerWorkerData {
  readonly libraryPath: string;
  readonly deviceIndices: readonly number[];
  readonly intervalMs: number;
  readonly clockOrigin: ClockOrigin;
  readonly ringBuffer: SharedArrayBuffer;
  /** Int32 slots, see `controlSlot`. */
  readonly controlBuffer: SharedArrayBuffer;
  readonly processId: number;
  readonly processMemory: boolean;
}

export const controlSlot = { state: 0, stop: 1 } as const;
export const controlSlots = 2;

export const samplerState = { starting: 0, running: 1, stopped: 2, failed: 3 } as const;

export type SamplerWorkerMessage =
  | { readonly type: "running" }
  | { readonly type: "failed"; readonly failure: NvmlFailure };
