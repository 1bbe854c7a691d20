// Wire enums: lower snake case, matched exactly and case-sensitively (spec §3). Plain constants and
// the types they spell; their zod schemas are in enums.ts, off the zod-free `@cg/schema/core` entry.

export const EVENT_KINDS = [
  "meta",
  "span_start",
  "span_end",
  "op",
  "tensor",
  "memory",
  "device_memory",
  "gradient",
  "edge",
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const SPAN_KINDS = ["function", "op", "module"] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

export const EXECUTION_PHASES = ["train", "infer"] as const;
export type ExecutionPhase = (typeof EXECUTION_PHASES)[number];

export const EXECUTION_STEPS = ["forward", "backward", "optimizer"] as const;
export type ExecutionStep = (typeof EXECUTION_STEPS)[number];

export const TIMING_MODES = ["host", "device_synchronized"] as const;
export type TimingMode = (typeof TIMING_MODES)[number];

export const GRADIENT_STATES = ["present", "missing", "zero", "non_finite"] as const;
export type GradientState = (typeof GRADIENT_STATES)[number];

export const MEMORY_ACTIONS = ["alloc", "free"] as const;
export type MemoryAction = (typeof MEMORY_ACTIONS)[number];

/** Listed in byte order, which is also the key order of category maps in analyses. */
export const MEMORY_CATEGORIES = ["activation", "gradient", "optimizer", "other", "parameter"] as const;
export type MemoryCategory = (typeof MEMORY_CATEGORIES)[number];
