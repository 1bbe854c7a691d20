import { z } from "zod";
import { EVENT_LAYOUTS } from "./event-layouts.js";
import { zodSchemaOf } from "./zod-from-layout.js";

// One zod schema per event kind, derived from the layout table (event-layouts.ts, spec §2). The
// schemas validate JavaScript values (objects already decoded from JSON). Literal-level rules that
// a decoded value can no longer show (`5000.0` vs `5000`, repeated keys, integers beyond 2^53) are
// enforced by `decodeTraceLine`, which every reader should use for raw lines.

export const MetaEvent = zodSchemaOf(EVENT_LAYOUTS.meta);
export const SpanStartEvent = zodSchemaOf(EVENT_LAYOUTS.span_start);
export const SpanEndEvent = zodSchemaOf(EVENT_LAYOUTS.span_end);
export const OpEvent = zodSchemaOf(EVENT_LAYOUTS.op);
export const TensorEvent = zodSchemaOf(EVENT_LAYOUTS.tensor);
export const MemoryEvent = zodSchemaOf(EVENT_LAYOUTS.memory);
export const DeviceMemoryEvent = zodSchemaOf(EVENT_LAYOUTS.device_memory);
export const GradientEvent = zodSchemaOf(EVENT_LAYOUTS.gradient);
export const EdgeEvent = zodSchemaOf(EVENT_LAYOUTS.edge);

// The decoded event of each kind (defaults applied, optional keys optional). A gradient's `norm` is
// any finite JSON number (integers read as floats); a non-finite norm is written as `null`.
export type MetaEvent = z.output<typeof MetaEvent>;
export type SpanStartEvent = z.output<typeof SpanStartEvent>;
export type SpanEndEvent = z.output<typeof SpanEndEvent>;
export type OpEvent = z.output<typeof OpEvent>;
export type TensorEvent = z.output<typeof TensorEvent>;
export type MemoryEvent = z.output<typeof MemoryEvent>;
export type DeviceMemoryEvent = z.output<typeof DeviceMemoryEvent>;
export type GradientEvent = z.output<typeof GradientEvent>;
export type EdgeEvent = z.output<typeof EdgeEvent>;

// What each schema accepts as input (defaulted keys optional).
export type MetaEventInput = z.input<typeof MetaEvent>;
export type SpanStartEventInput = z.input<typeof SpanStartEvent>;
export type SpanEndEventInput = z.input<typeof SpanEndEvent>;
export type OpEventInput = z.input<typeof OpEvent>;
export type TensorEventInput = z.input<typeof TensorEvent>;
export type MemoryEventInput = z.input<typeof MemoryEvent>;
export type DeviceMemoryEventInput = z.input<typeof DeviceMemoryEvent>;
export type GradientEventInput = z.input<typeof GradientEvent>;
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
