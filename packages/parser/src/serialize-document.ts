// Re-serialisation of a document (spec §4.5, §9.3): meta; each span (id order) as span_start then
// span_end if closed; then ops, tensors, memory, device memory, gradients and edges in their order.
import { encodeTraceEvent, type SpanStartEvent, type TraceEvent } from "@cg/schema/core";
import type { SpanRecord, TraceDocument } from "./trace-document.js";

function spanStart(span: SpanRecord): SpanStartEvent {
  const event: SpanStartEvent = {
    kind: "span_start",
    id: span.id,
    name: span.name,
    start_ns: span.start_ns,
    span_kind: span.kind,
    measured: span.measured,
  };
  if (span.parent_id !== undefined) event.parent_id = span.parent_id;
  if (span.step !== undefined) event.step = span.step;
  return event;
}

/** The document's events in re-serialisation order, as wire events. */
export function* documentEvents(document: TraceDocument): Generator<TraceEvent> {
  yield { kind: "meta", schema: document.schema, ...document.run };
  for (const span of document.spans) {
    yield spanStart(span);
    if (span.closed) yield { kind: "span_end", id: span.id, duration_ns: span.duration_ns };
  }
  for (const op of document.ops) yield { ...op, kind: "op" };
  for (const tensor of document.tensors) yield { ...tensor, kind: "tensor" };
  for (const event of document.memory) yield { ...event, kind: "memory" };
  for (const event of document.device_memory) yield { ...event, kind: "device_memory" };
  for (const event of document.gradients) yield { ...event, kind: "gradient" };
  for (const event of document.edges) yield { ...event, kind: "edge" };
}

/** Writes a document as canonical JSONL (each line followed by LF). */
export function serializeDocument(document: TraceDocument): string {
  let text = "";
  for (const event of documentEvents(document)) text += `${encodeTraceEvent(event)}\n`;
  return text;
}
