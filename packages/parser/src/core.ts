// `@cg/parser/core`: the reader, health, summaries, queries and comparison without any Node module
// (browsers, workers, edge runtimes). Sources are `{ text }`, bytes, a web `ReadableStream` or an
// (async) iterable of chunks; the root entry `@cg/parser` adds file paths.
export {
  type AttributionSides,
  attributeComparison,
} from "./compare-attribution.js";
export {
  type FormatAttributionOptions,
  formatAttribution,
  formatSignedBytes,
  formatSignedNs,
} from "./compare-attribution-format.js";
export {
  type AttributedOp,
  type AttributionSide,
  AttributionSideBuilder,
  type MemoryPartSide,
  type OpPartSide,
  opSignature,
  type PeakSide,
  SpanKeyCache,
} from "./compare-attribution-side.js";
export type {
  AttributionMatch,
  AttributionOptions,
  CategoryDelta,
  ComparisonAttribution,
  MemoryAttributionPart,
  OtherMemory,
  OtherTime,
  PeakAttribution,
  PeakLocation,
  TimeAttribution,
  TimeAttributionPart,
  UnmatchedMemory,
  UnmatchedTime,
} from "./compare-attribution-types.js";
export {
  ComparisonInputError,
  type ComparisonInputErrorCode,
  type ComparisonInputErrorOptions,
} from "./compare-error.js";
export {
  evaluateGate,
  type GateCheck,
  type GateResult,
  type GateSide,
  spanSelected,
} from "./compare-gate.js";
export {
  type GateLimit,
  type GateMetric,
  type GateRule,
  type GateScope,
  parseGateRules,
} from "./compare-gate-rules.js";
export {
  type CompareStreamOptions,
  compareTraceFiles,
  type SideReadOptions,
  streamedSide,
  streamedSideAndSummary,
} from "./compare-stream.js";
export {
  addGradient,
  type ComparedRun,
  type CompareOptions,
  type Comparison,
  type ComparisonSide,
  compareSides,
  compareTraces,
  DESCRIPTIVE_TAGS,
  documentSide,
  type GradientChange,
  type GradientSide,
  type SignedInteger,
  type SpanDelta,
  spanPathKey,
  unknownSpanKey,
} from "./compare-traces.js";
export {
  analyzeHealth,
  type HealthCoverage,
  type HealthIssue,
  type HealthOptions,
  type HealthReport,
  type HealthSeverity,
} from "./health.js";
export { DEFAULT_MAX_LINE_LENGTH, type ReadOptions } from "./line-processor.js";
export { MemoryTimelineStream, type MemoryTimelineStreamOptions } from "./memory-timeline-stream.js";
export {
  compareOperators,
  type OperatorComparison,
  type OperatorDelta,
  operatorLabel,
  type SignedCount,
} from "./operator-compare.js";
export {
  formatShape,
  OPERATOR_GROUP_FIELDS,
  OperatorAccumulator,
  type OperatorGroupField,
  type OperatorRows,
  type OperatorStats,
  type OperatorTable,
  type OperatorTableOptions,
  operatorTable,
  operatorTableOfEvents,
} from "./operator-stats.js";
export { parseTrace, parseTraceText } from "./parse-trace.js";
export {
  type QueryStream,
  type QueryStreamOptions,
  queryTraceStream,
  type StreamedQueryKind,
  type StreamedQueryResults,
} from "./query-stream.js";
export {
  type EfficiencyEntry,
  type EfficiencyResult,
  type GradientsResult,
  type HeaviestResult,
  type MemoryResult,
  type OpCost,
  QUERY_KINDS,
  type QueryKind,
  type QueryOptions,
  type QueryResult,
  type QueryResults,
  queryTrace,
  type SlowestResult,
  type SpansResult,
  type TensorsResult,
} from "./query-trace.js";
export { type ColumnReadOptions, readColumnBatches } from "./read-column-batches.js";
export { type BatchReadOptions, readTraceBatches } from "./read-trace-batches.js";
export { readTraceEvents, type TraceEventRecord } from "./read-trace-events.js";
export { RowSource } from "./row-source.js";
export { documentEvents, serializeDocument } from "./serialize-document.js";
export type { SpanCost, SpanCostOptions } from "./span-cost.js";
export { SpanCostCollector } from "./span-cost-collector.js";
export { SpanCostColumns } from "./span-cost-columns.js";
export { spanCostColumns, spanCosts } from "./span-costs.js";
export { type SpanSelfTime, type SummarizeOptions, summarize, type TraceSummary } from "./summarize.js";
export {
  type ColumnSummaryOptions,
  checkColumns,
  type StreamCheck,
  type StreamRankings,
  type StreamSummary,
  type StreamSummaryOptions,
  summarizeColumns,
  summarizeStream,
} from "./summarize-stream.js";
export type { ResolvedOpEvent, ResolvedTensorEvent, SpanRecord, TraceDocument } from "./trace-document.js";
export { spanRecordFromStart } from "./trace-document.js";
export type { TraceParseErrorCode, TraceParseErrorOptions, TraceParseStage } from "./trace-parse-error.js";
export { TraceParseError } from "./trace-parse-error.js";
export type { ChunkIterable, TraceSource } from "./trace-source.js";
export {
  createTraceSummarizer,
  type StreamSummarizer,
  type TraceSummarizerOptions,
} from "./trace-summarizer.js";
