/** Caps that keep a report fast and its size bounded however large the trace is. */
export interface ReportLimits {
  /** Spans drawn in the flame chart (the longest ones, plus their ancestors). */
  timelineSpans: number;
  /** Op marks drawn; past this, ops are folded per (span, op name). */
  timelineOps: number;
  /** Rows of the span cost table. */
  spanCostRows: number;
  /** Points per device of the memory timeline and of the device-memory series. */
  memoryPoints: number;
  /** Live allocations listed at the peak. */
  peakAllocations: number;
  /** Gradient rows (problems always first). */
  gradientRows: number;
  /** Rows of the operator table (the costliest operators). */
  operatorRows: number;
}

export const DEFAULT_REPORT_LIMITS: ReportLimits = {
  timelineSpans: 4000,
  timelineOps: 5000,
  spanCostRows: 1000,
  memoryPoints: 1500,
  peakAllocations: 500,
  gradientRows: 2000,
  operatorRows: 1000,
};
