import type { MemoryAnalysis, MemoryTimelinePoint } from "@cg/memory";
import type { HealthReport, OperatorTable, TraceSummary } from "@cg/parser";
import type { DeviceMemoryEvent, RunMetadata } from "@cg/schema/core";
import type { GradientCollector } from "./build-gradients.js";
import type { MaxDownsampler } from "./max-downsampler.js";
import type { ReportSpans } from "./report-spans.js";

/**
 * Everything the report needs of one trace, each part bounded or compact: made from a parsed
 * document (`documentReportInputs`) or from a streamed read (`streamReportInputs`), then turned
 * into the page's payload by one builder, so both give the same report.
 */
export interface TraceReportInputs {
  run: RunMetadata;
  health: HealthReport;
  summary: Omit<TraceSummary, "self_times">;
  /** The memory analysis; its `timeline` is not read (see `memorySeries`). */
  memory: MemoryAnalysis;
  /** The memory timeline per device, downsampled while it was made. */
  memorySeries: ReadonlyMap<string, MaxDownsampler<MemoryTimelinePoint>>;
  /** Device-memory samples per device (in order of first sample), downsampled. */
  deviceMemory: ReadonlyMap<string, MaxDownsampler<DeviceMemoryEvent>>;
  spans: ReportSpans;
  /** The operator table, already cut to `operatorRows`. */
  operators: OperatorTable;
  gradients: GradientCollector;
  /** How figures were computed where that matters to the reader (e.g. approximations). */
  notes: string[];
}
