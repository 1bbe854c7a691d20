import { ColumnBatch } from "@cg/schema/core";
import type { ReadOptions } from "./line-processor.js";
import { createColumnProcessor, processChunks, processSync } from "./process-chunks.js";
import { DocumentBuilder, type TraceDocument } from "./trace-document.js";
import type { TraceSource } from "./trace-source.js";

/**
 * Events decoded into the batch before they become the document's objects: the batch's columns
 * stay small and are reused, whatever the size of the trace.
 */
const EVENTS_PER_STEP = 4096;

/** Hands the batch's events to the builder in file order, and clears the batch. */
function addBatch(builder: DocumentBuilder, batch: ColumnBatch): void {
  for (let at = 0; at < batch.size; at++) builder.add(batch.event(at));
  batch.clear();
}

/**
 * Reads a whole trace into a `TraceDocument` (spec §9). Accepts everything `readTraceEvents` does:
 * a file path, `{ text }`, bytes, a web `ReadableStream` or a Node readable stream.
 * @throws TraceParseError on the first defect (strict mode), or when a lenient read has no meta.
 */
export async function parseTrace(source: TraceSource, options: ReadOptions = {}): Promise<TraceDocument> {
  const builder = new DocumentBuilder();
  const batch = new ColumnBatch();
  const processor = createColumnProcessor(source, options, batch);
  for await (const _ of processChunks(source, processor, EVENTS_PER_STEP)) addBatch(builder, batch);
  return builder.build(processor.lenient ? processor.diagnostics : undefined);
}

/** Synchronous `parseTrace` for trace text or UTF-8 bytes already in memory. */
export function parseTraceText(text: string | Uint8Array, options: ReadOptions = {}): TraceDocument {
  const builder = new DocumentBuilder();
  const batch = new ColumnBatch();
  const processor = createColumnProcessor(typeof text === "string" ? { text } : text, options, batch);
  processSync(text, processor, EVENTS_PER_STEP, () => addBatch(builder, batch));
  return builder.build(processor.lenient ? processor.diagnostics : undefined);
}
