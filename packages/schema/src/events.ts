import { z } from "zod";
import {
  ExecutionPhase,
  ExecutionStep,
  GradientState,
  MemoryAction,
  MemoryCategory,
  SpanKind,
  TimingMode,
} from "./enums.js";
import { U64 } from "./u64.js";

// One schema per event kind, exactly as spec §2 defines the keys. The schemas validate JavaScript
// values (objects already decoded from JSON). Literal-level rules that a decoded value can no
// longer show (`5000.0` vs `5000`, duplicate keys, integers beyond 2^53) are enforced by
// `decodeTraceLine`, which every reader should use for raw lines.

/** Optional key with no default: JSON `null` reads as absent (spec §2.1). */
function absentWhenNull<T extends z.ZodType>(schema: T) {
  return schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();
}

const shape = z.array(U64);
const stringMap = z.record(z.string(), z.string());

export const MetaEvent = z.object({
  kind: z.literal("meta"),
  schema: z.string(),
  run_id: z.string(),
  correlation_id: z.string(),
  entrypoint: z.string(),
  phase: ExecutionPhase,
  timestamp: z.string(),
  capture_step: U64,
  warmup_steps: U64,
  device: z.string(),
  measured_region_device_synchronized: z.boolean().default(false),
  timing_mode: TimingMode,
  tags: stringMap,
  candle_version: absentWhenNull(z.string()),
});
export type MetaEvent = z.output<typeof MetaEvent>;
export type MetaEventInput = z.input<typeof MetaEvent>;

export const SpanStartEvent = z.object({
  kind: z.literal("span_start"),
  id: z.string(),
  parent_id: absentWhenNull(z.string()),
  name: z.string(),
  start_ns: U64,
  span_kind: SpanKind,
  measured: z.boolean().default(false),
  step: absentWhenNull(ExecutionStep),
});
export type SpanStartEvent = z.output<typeof SpanStartEvent>;
export type SpanStartEventInput = z.input<typeof SpanStartEvent>;

export const SpanEndEvent = z.object({
  kind: z.literal("span_end"),
  id: z.string(),
  duration_ns: U64.default(0),
});
export type SpanEndEvent = z.output<typeof SpanEndEvent>;
export type SpanEndEventInput = z.input<typeof SpanEndEvent>;

export const OpEvent = z.object({
  kind: z.literal("op"),
  span_id: z.string(),
  op_name: z.string(),
  inputs: z.array(z.string()).default([]),
  output: absentWhenNull(z.string()),
  shape: shape.default([]),
  dtype: z.string(),
  device: z.string(),
  duration_ns: U64,
  timestamp_ns: U64.default(0),
  storage_bytes: absentWhenNull(U64),
  input_storage_bytes: U64.default(0),
});
export type OpEvent = z.output<typeof OpEvent>;
export type OpEventInput = z.input<typeof OpEvent>;

export const TensorEvent = z.object({
  kind: z.literal("tensor"),
  span_id: z.string(),
  tensor_id: z.string(),
  shape: shape.default([]),
  dtype: z.string(),
  device: z.string(),
  requires_grad: z.boolean().default(false),
  storage_bytes: absentWhenNull(U64),
  category: MemoryCategory.default("other"),
});
export type TensorEvent = z.output<typeof TensorEvent>;
export type TensorEventInput = z.input<typeof TensorEvent>;

export const MemoryEvent = z.object({
  kind: z.literal("memory"),
  timestamp_ns: U64,
  tensor_id: z.string(),
  span_id: z.string(),
  op_name: absentWhenNull(z.string()),
  device: z.string(),
  bytes: U64,
  action: MemoryAction,
  shape: shape.default([]),
  dtype: z.string(),
  category: MemoryCategory.default("other"),
});
export type MemoryEvent = z.output<typeof MemoryEvent>;
export type MemoryEventInput = z.input<typeof MemoryEvent>;

export const DeviceMemoryEvent = z.object({
  kind: z.literal("device_memory"),
  timestamp_ns: U64,
  device: z.string(),
  used_bytes: U64,
  free_bytes: U64,
  reserved_bytes: absentWhenNull(U64),
});
export type DeviceMemoryEvent = z.output<typeof DeviceMemoryEvent>;
export type DeviceMemoryEventInput = z.input<typeof DeviceMemoryEvent>;

export const GradientEvent = z.object({
  kind: z.literal("gradient"),
  event_id: z.string(),
  root: z.string(),
  key: z.string(),
  state: GradientState,
  /** Any finite JSON number; integers read as floats. Non-finite norms are written as `null`. */
  norm: absentWhenNull(z.number()),
});
export type GradientEvent = z.output<typeof GradientEvent>;
export type GradientEventInput = z.input<typeof GradientEvent>;

export const EdgeEvent = z.object({
  kind: z.literal("edge"),
  from_span: z.string(),
  to_span: z.string(),
  duration_ns: U64,
});
export type EdgeEvent = z.output<typeof EdgeEvent>;
export type EdgeEventInput = z.input<typeof EdgeEvent>;

export const TraceEvent = z.discriminatedUnion("kind", [
  MetaEvent,
  SpanStartEvent,
  SpanEndEvent,
  OpEvent,
  TensorEvent,
  MemoryEvent,
  DeviceMemoryEvent,
  GradientEvent,
  EdgeEvent,
]);
export type TraceEvent = z.output<typeof TraceEvent>;
export type TraceEventInput = z.input<typeof TraceEvent>;

/** The event type of one kind, e.g. `EventOfKind<"op">` is `OpEvent`. */
export type EventOfKind<K extends TraceEvent["kind"]> = Extract<TraceEvent, { kind: K }>;

/** Run metadata: the `meta` event without `kind` and `schema` (spec §9.1). */
export type RunMetadata = Omit<MetaEvent, "kind" | "schema">;
