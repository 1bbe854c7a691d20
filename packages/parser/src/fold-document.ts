// A document's events fed to a streaming fold, so that every analysis of a document is the
// analysis of its stream: one implementation per figure, whatever holds the events.
import type { TraceEvent } from "@cg/schema/core";
import { documentEvents } from "./serialize-document.js";
import type { TraceDocument } from "./trace-document.js";

/**
 * Gives `add` every event of `document` in re-serialisation order (meta, spans in id order, then
 * each collection in its order). A document built in memory may repeat a span id; only the first
 * record of an id is given, as the reader keeps only the first `span_start` of an id.
 */
export function foldDocument(document: TraceDocument, add: (event: TraceEvent) => void): void {
  const started = new Set<string>();
  let skipping = false;
  for (const event of documentEvents(document)) {
    if (event.kind === "span_start") {
      skipping = started.has(event.id);
      if (skipping) continue;
      started.add(event.id);
    } else if (event.kind === "span_end") {
      if (skipping) continue;
    } else {
      skipping = false;
    }
    add(event);
  }
}
