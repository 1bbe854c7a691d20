import { z } from "zod";

// Wire enums: lower snake case, matched exactly and case-sensitively (spec §3).

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
export const EventKind = z.enum(EVENT_KINDS);
export type EventKind = z.infer<typeof EventKind>;

export const SPAN_KINDS = ["function", "op", "module"] as const;
export const SpanKind = z.enum(SPAN_KINDS);
export type SpanKind = z.infer<typeof SpanKind>;

export const EXECUTION_PHASES = ["train", "infer"] as const;
export const ExecutionPhase = z.enum(EXECUTION_PHASES);
export type ExecutionPhase = z.infer<typeof ExecutionPhase>;

export const EXECUTION_STEPS = ["forward", "backward", "optimizer"] as const;
export const ExecutionStep = z.enum(EXECUTION_STEPS);
export type ExecutionStep = z.infer<typeof ExecutionStep>;

export const TIMING_MODES = ["host", "device_synchronized"] as const;
export const TimingMode = z.enum(TIMING_MODES);
export type TimingMode = z.infer<typeof TimingMode>;

export const GRADIENT_STATES = ["present", "missing", "zero", "non_finite"] as const;
export const GradientState = z.enum(GRADIENT_STATES);
export type GradientState = z.infer<typeof GradientState>;

export const MEMORY_ACTIONS = ["alloc", "free"] as const;
export const MemoryAction = z.enum(MEMORY_ACTIONS);
export type MemoryAction = z.infer<typeof MemoryAction>;

/** Listed in byte order, which is also the key order of category maps in analyses. */
export const MEMORY_CATEGORIES = ["activation", "gradient", "optimizer", "other", "parameter"] as const;
export const MemoryCategory = z.enum(MEMORY_CATEGORIES);
export type MemoryCategory = z.infer<typeof MemoryCategory>;
