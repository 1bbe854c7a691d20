import type { ExactNumber } from "./exact-number.js";

/** Version of the JSON embedded in a report page. */
export const REPORT_PAYLOAD_SCHEMA = "cg-report/1";

/** Everything the page shows, as plain JSON (exact u64 values as decimal strings past 2^53). */
export interface ReportPayload {
  schema: typeof REPORT_PAYLOAD_SCHEMA;
  title: string;
  candidate: TraceReport;
  baseline?: TraceReport;
  comparison?: ComparisonReport;
  /**
   * Strings longer than 200 characters appear everywhere above in a cut form ("start… (+N
   * characters)"); this maps each cut form to the full value, kept once however often it is shown.
   */
  full_strings?: Record<string, string>;
}

export interface TraceReport {
  /** Display name of the trace, usually its file name. */
  label: string;
  run: RunReport;
  health: HealthReport;
  summary: SummaryReport;
  findings: string[];
  timeline: TimelineReport;
  spanCosts: SpanCostTable;
  operators: OperatorReport;
  memory: MemoryReport;
  gradients: GradientTable;
  /** Where the report aggregated or downsampled, said in words for the reader. */
  reductions: string[];
}

export interface RunReport {
  run_id: string;
  correlation_id: string;
  entrypoint: string;
  phase: string;
  timestamp: string;
  capture_step: ExactNumber;
  warmup_steps: ExactNumber;
  device: string;
  measured_region_device_synchronized: boolean;
  timing_mode: string;
  /** Tag entries in canonical key order. */
  tags: Array<[string, string]>;
  candle_version?: string;
}

export interface HealthIssueReport {
  severity: string;
  code: string;
  message: string;
}

export interface HealthReport {
  trusted: boolean;
  issues: HealthIssueReport[];
  coverage: Array<[string, ExactNumber]>;
}

export interface SummaryReport {
  op_count: ExactNumber;
  total_ns: ExactNumber;
  span_count: ExactNumber;
  root_span_count: ExactNumber;
  max_depth: ExactNumber;
  alloc_count: ExactNumber;
  free_count: ExactNumber;
  peak_bytes: ExactNumber;
}

/** One span of the flame chart. `parent` is an index into `spans` (-1 for a drawn root). */
export interface TimelineSpan {
  id: string;
  parent: number;
  name: string;
  kind: string;
  step?: string;
  measured: boolean;
  closed: boolean;
  depth: number;
  start_ns: ExactNumber;
  duration_ns: ExactNumber;
  self_ns: ExactNumber;
  op_count: ExactNumber;
}

/** Ops drawn on their span: one mark per op, or per (span, op name) when aggregated. */
export interface TimelineOp {
  span: number;
  name: string;
  timestamp_ns: ExactNumber;
  duration_ns: ExactNumber;
  storage_bytes: ExactNumber;
  /** Number of ops folded into this mark (1 when not aggregated). */
  count: number;
}

export interface TimelineReport {
  spans: TimelineSpan[];
  ops: TimelineOp[];
  spans_total: number;
  ops_total: number;
  ops_aggregated: boolean;
}

export interface SpanCostRow {
  path: string;
  kind: string;
  step?: string;
  spans: number;
  total_ns: ExactNumber;
  self_ns: ExactNumber;
  op_count: ExactNumber;
  op_bytes: ExactNumber;
}

/** One operator (op name) of the operator table, like PyTorch's key_averages. */
export interface OperatorRow {
  op_name: string;
  calls: number;
  total_ns: ExactNumber;
  mean_ns: ExactNumber;
  min_ns: ExactNumber;
  p50_ns: ExactNumber;
  p95_ns: ExactNumber;
  max_ns: ExactNumber;
  /** Share of the measured time (0–1), null when nothing was measured. */
  share: number | null;
  output_bytes: ExactNumber;
  input_bytes: ExactNumber;
  /** Distinct shapes, dtypes and devices of its calls (for the tooltip); `shapes_more` counts the rest. */
  shapes: string[];
  shapes_more: number;
  dtypes: string[];
  devices: string[];
}

export interface OperatorReport {
  rows: OperatorRow[];
  /** Operators before the row limit. */
  rows_total: number;
  op_count: number;
  op_total_ns: ExactNumber;
}

export interface SpanCostTable {
  rows: SpanCostRow[];
  rows_total: number;
}

export interface MemoryPoint {
  timestamp_ns: ExactNumber;
  live_bytes: ExactNumber;
  by_category: Array<[string, ExactNumber]>;
}

export interface MemorySeries {
  device: string;
  points: MemoryPoint[];
  points_total: number;
}

export interface LiveAllocationRow {
  tensor_id: string;
  device: string;
  bytes: ExactNumber;
  category: string;
  span?: string;
  op_name?: string;
}

export interface DeviceMemoryPoint {
  timestamp_ns: ExactNumber;
  used_bytes: ExactNumber;
  free_bytes: ExactNumber;
  reserved_bytes?: ExactNumber;
}

export interface DeviceMemorySeries {
  device: string;
  points: DeviceMemoryPoint[];
  points_total: number;
}

export interface DeviceSummaryRow {
  device: string;
  capacity_bytes: ExactNumber;
  peak_bytes: ExactNumber;
  peak_timestamp_ns: ExactNumber;
  alloc_count: ExactNumber;
  free_count: ExactNumber;
}

export interface MemoryReport {
  peak_bytes: ExactNumber;
  peak_timestamp_ns: ExactNumber;
  peak_device: string;
  peak_by_category: Array<[string, ExactNumber]>;
  total_alloc_bytes: ExactNumber;
  autograd_retained_bytes: ExactNumber;
  by_device: DeviceSummaryRow[];
  series: MemorySeries[];
  peak_allocations: LiveAllocationRow[];
  peak_allocations_total: number;
  device_memory: DeviceMemorySeries[];
}

export interface GradientRow {
  root: string;
  key: string;
  state: string;
  /** `null` when absent; non-finite norms as the strings "NaN", "Infinity", "-Infinity". */
  norm: number | string | null;
  problem: boolean;
}

export interface GradientTable {
  rows: GradientRow[];
  rows_total: number;
  problems: number;
}

export interface PathDeltaRow {
  path: string;
  baseline_ns: ExactNumber;
  candidate_ns: ExactNumber;
  delta_ns: ExactNumber;
  /** Percent change; absent when the baseline is 0. */
  delta_percent?: number;
}

export interface GradientChangeRow {
  key: string;
  baseline: string;
  candidate: string;
}

export interface ComparisonReport {
  comparable: boolean;
  reasons: string[];
  warnings: string[];
  baseline_total_ns: ExactNumber;
  candidate_total_ns: ExactNumber;
  total_delta_ns: ExactNumber;
  total_delta_percent?: number;
  baseline_peak_bytes: ExactNumber;
  candidate_peak_bytes: ExactNumber;
  peak_delta_bytes: ExactNumber;
  paths: PathDeltaRow[];
  gradient_changes: GradientChangeRow[];
  /** Which spans, ops, categories and allocations explain the deltas (the parser's attribution). */
  attribution?: AttributionReport;
}

/** A named part of a delta (ns for time, bytes for the peak). */
export interface AttributionPartRow {
  rank: number;
  label: string;
  baseline: ExactNumber;
  candidate: ExactNumber;
  delta: ExactNumber;
  /** delta ÷ the total delta. */
  share: number;
  /** Calls, or allocations and the largest one. */
  detail: string;
}

/** One half of the attribution: its parts, and the unmatched and other rows (all add up to `delta`). */
export interface AttributionHalfReport {
  delta: ExactNumber;
  delta_percent?: number;
  named_share: number;
  parts: AttributionPartRow[];
  unmatched: { delta: ExactNumber; parts: number; largest: string[] };
  other: { delta: ExactNumber; parts: number; parts_delta: ExactNumber; structure_delta: ExactNumber };
}

export interface AttributionReport {
  time: AttributionHalfReport;
  peak: AttributionHalfReport & {
    moved: boolean;
    baseline_span?: string;
    candidate_span?: string;
    by_category: { category: string; baseline: ExactNumber; candidate: ExactNumber; delta: ExactNumber }[];
  };
}
