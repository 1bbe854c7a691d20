// `spanCosts` of a document: its events folded through the streamed cost table, so a document and
// a stream share one implementation of the reference graph's rules (spec §16 "Graph").
import { foldDocument } from "./fold-document.js";
import type { SpanCost, SpanCostOptions } from "./span-cost.js";
import { SpanCostCollector } from "./span-cost-collector.js";
import type { SpanCostColumns } from "./span-cost-columns.js";
import type { TraceDocument } from "./trace-document.js";

/** Every span's cost as columns (the same `SpanCostColumns` a streamed summary gives with `spanCosts`). */
export function spanCostColumns(document: TraceDocument, options: SpanCostOptions = {}): SpanCostColumns {
  const collector = new SpanCostCollector();
  foldDocument(document, (event) => collector.push(event));
  return collector.finish(options);
}

/** Cost of every span, in the document's span (id) order. */
export function spanCosts(document: TraceDocument, options: SpanCostOptions = {}): SpanCost[] {
  const columns = spanCostColumns(document, options);
  return document.spans.map((span) => columns.cost(columns.rowOf(span.id)));
}
