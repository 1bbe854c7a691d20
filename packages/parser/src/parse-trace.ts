import type { ReadOptions } from "./line-processor.js";
import { createProcessor, processChunks, processSync } from "./process-chunks.js";
import { DocumentBuilder, type TraceDocument } from "./trace-document.js";
import type { TraceSource } from "./trace-source.js";

/**
 * Reads a whole trace into a `TraceDocument` (spec §9). Accepts everything `readTraceEvents` does:
 * a file path, `{ text }`, bytes, a web `ReadableStream` or a Node readable stream.
 * @throws TraceParseError on the first defect (strict mode), or when a lenient read has no meta.
 */
export async function parseTrace(source: TraceSource, options: ReadOptions = {}): Promise<TraceDocument> {
  const builder = new DocumentBuilder();
  const processor = createProcessor(source, options, builder.add);
  for await (const _ of processChunks(source, processor)) {
    // Events were delivered to the builder as the chunk was processed.
  }
  return builder.build(processor.lenient ? processor.diagnostics : undefined);
}

/** Synchronous `parseTrace` for trace text or UTF-8 bytes already in memory. */
export function parseTraceText(text: string | Uint8Array, options: ReadOptions = {}): TraceDocument {
  const builder = new DocumentBuilder();
  const processor = createProcessor(typeof text === "string" ? { text } : text, options, builder.add);
  processSync(text, processor);
  return builder.build(processor.lenient ? processor.diagnostics : undefined);
}
