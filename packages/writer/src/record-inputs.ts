import type { MemoryCategory, U64 } from "@cg/schema";

// Inputs of the record methods: camelCase option objects; the writer maps them to the snake_case
// wire keys. Optional fields also accept an explicit `undefined`.

/** `recordOp` input (spec §13.4 "op record"). */
export interface OpRecord {
  opName: string;
  inputs?: readonly string[] | undefined;
  output?: string | undefined;
  shape?: readonly U64[] | undefined;
  dtype: string;
  device: string;
  durationNs: U64;
  /** Nanoseconds since capture start; absent means "now". An explicit 0 is written as 0 (spec §17 Q10). */
  timestampNs?: U64 | undefined;
  /** Explicit output footprint; absent means derived from shape and dtype (spec §15.4). */
  storageBytes?: U64 | undefined;
  inputStorageBytes?: U64 | undefined;
}

/** `recordTensor` input (spec §13.4 "tensor record"). */
export interface TensorRecord {
  tensorId: string;
  shape?: readonly U64[] | undefined;
  dtype: string;
  device: string;
  requiresGrad?: boolean | undefined;
  storageBytes?: U64 | undefined;
  category?: MemoryCategory | undefined;
}

/** `recordMemoryAlloc` / `recordMemoryFree` input (spec §13.4 "memory record"). */
export interface MemoryRecord {
  tensorId: string;
  device: string;
  /** Bytes allocated or freed, written as given (never derived). */
  bytes: U64;
  dtype: string;
  category?: MemoryCategory | undefined;
  /** Absent means "now"; 0 is allowed. */
  timestampNs?: U64 | undefined;
  opName?: string | undefined;
  shape?: readonly U64[] | undefined;
}
