// One trace into the tables' rows, read once: events stream from the parser's validating reader
// in batches; each is folded into the parser's streaming summary (health and figures for `runs`)
// and written into its table's column buffers. Spans are held (one compact record each) until the
// end, where the span tree gives depth, path and times. Where the filled chunks go (DuckDB on this
// thread, or another thread) is the rows' sink; nothing here touches DuckDB.
import { resolveStorageBytes } from "@cg/memory";
import {
  createTraceSummarizer,
  readTraceBatches,
  type SpanCost,
  type SpanRecord,
  type StreamSummary,
  spanCosts,
  spanRecordFromStart,
  type TraceDocument,
  TraceParseError,
} from "@cg/parser";
import { type TraceEvent, type U64, u64ToBigInt } from "@cg/schema";
import { SqlError } from "./sql-error.js";
import type { TableRows } from "./table-rows.js";
import { TABLE_OF_KIND, type TableName } from "./tables.js";

/** A trace read into the tables. */
export interface IngestedRun {
  file: string;
  run_id: string;
  trusted: boolean;
  events: number;
}

/** A trace left out, with the reader's error (file, line, message). */
export interface RejectedTrace {
  file: string;
  /** 1-based line of the defect, when a line causes it. */
  line?: number;
  code: string;
  message: string;
}

/** What an ingest did: runs read (untrusted ones included, marked) and traces left out. */
export interface IngestReport {
  runs: IngestedRun[];
  rejected: RejectedTrace[];
}

/** Adds a trace's outcome to the report; with `strict`, a rejected trace fails the ingest. */
export function recordOutcome(
  report: IngestReport,
  outcome: IngestedRun | RejectedTrace,
  strict: boolean | undefined,
): void {
  if ("run_id" in outcome) {
    report.runs.push(outcome);
    return;
  }
  if (strict === true) {
    const where = outcome.line === undefined ? "" : `:${outcome.line}`;
    throw new SqlError({
      message: `${outcome.file}${where}: ${outcome.message}`,
      code: outcome.code === "duplicate_run" ? "duplicate_run" : "invalid_trace",
      file: outcome.file,
    });
  }
  report.rejected.push(outcome);
}

export type Writers = Record<TableName, TableRows>;

export interface TraceIngestHooks {
  /**
   * Removes the rows of a rejected run that already left the writers (those still pending were
   * discarded first).
   */
  removeRun(runId: string): Promise<void> | void;
  /** Called after each batch of events: a promise holds the reading until it settles. */
  afterBatch?: () => Promise<void> | undefined;
}

/** Per-span totals of its own ops: all the span tree needs from the ops. */
interface OpTotals {
  ns: bigint;
  bytes: bigint;
}

function spanDocument(spans: Map<string, SpanRecord>, opTotals: Map<string, OpTotals>): TraceDocument {
  // spanCosts reads spans and, for zero-duration spans, their ops' durations: one summed op per
  // span carries the same totals without holding every op.
  const ops: TraceDocument["ops"] = [];
  for (const [spanId, totals] of opTotals) {
    ops.push({
      kind: "op",
      span_id: spanId,
      op_name: "",
      inputs: [],
      shape: [],
      dtype: "",
      device: "",
      duration_ns: totals.ns as U64,
      timestamp_ns: 0,
      storage_bytes: totals.bytes as U64,
      input_storage_bytes: 0,
    });
  }
  const sorted = [...spans.values()].sort((left, right) =>
    left.id < right.id ? -1 : left.id > right.id ? 1 : 0,
  );
  return {
    schema: "",
    run: undefined as unknown as TraceDocument["run"],
    spans: sorted,
    ops,
    tensors: [],
    memory: [],
    device_memory: [],
    gradients: [],
    edges: [],
  };
}

/** The `runs` row: the meta fields, then the columns the summary gives, by column name. */
function runRecord(file: string, summary: StreamSummary): Record<string, unknown> {
  const { summary: figures, health, memory } = summary;
  return {
    ...summary.run,
    schema: summary.schema,
    file,
    trusted: health.trusted,
    error_codes: issueCodes(summary, "error"),
    warning_codes: issueCodes(summary, "warning"),
    events: summary.events,
    measured_ns: figures.total_ns,
    op_count: figures.op_count,
    span_count: figures.span_count,
    root_span_count: figures.root_span_count,
    max_depth: figures.max_depth,
    alloc_count: figures.alloc_count,
    free_count: figures.free_count,
    peak_bytes: memory.peak_bytes,
    peak_device: memory.peak_device === "" ? null : memory.peak_device,
  };
}

/** A `spans` row: the span_start's fields, then what the span_end and the span tree give. */
function spanRow(start: SpanStart, span: SpanRecord, cost: SpanCost): Record<string, unknown> {
  return {
    ...start,
    duration_ns: span.duration_ns,
    closed: span.closed,
    depth: cost.depth,
    path: cost.path,
    total_ns: cost.total_ns,
    self_ns: cost.self_ns,
  };
}

type SpanStart = Extract<TraceEvent, { kind: "span_start" }>;

function issueCodes(summary: StreamSummary, severity: "error" | "warning"): string[] {
  return summary.health.issues.filter((issue) => issue.severity === severity).map((issue) => issue.code);
}

export class TraceIngest {
  readonly #writers: Writers;
  readonly #hooks: TraceIngestHooks;
  readonly #runs = new Map<string, string>();

  constructor(writers: Writers, hooks: TraceIngestHooks) {
    this.#writers = writers;
    this.#hooks = hooks;
  }

  /** Run ids already in the tables, with their file. */
  get runs(): ReadonlyMap<string, string> {
    return this.#runs;
  }

  /** Reads one trace into the tables; a rejected trace leaves no row behind. */
  async ingest(file: string): Promise<IngestedRun | RejectedTrace> {
    let runId: string | undefined;
    let duplicateOf: string | undefined;
    let events = 0;
    const spans = new Map<string, SpanRecord>();
    const spanStarts = new Map<string, SpanStart>();
    const opTotals = new Map<string, OpTotals>();
    const writers = this.#writers;
    const summarizer = createTraceSummarizer({ file });
    const afterBatch = this.#hooks.afterBatch;
    try {
      reading: for await (const batch of readTraceBatches(file, { file })) {
        for (const { event, line, index } of batch) {
          events++;
          // The reader rejects a trace whose first event is not its meta, after delivering the
          // events before the defect; they have no run to belong to.
          if (runId === undefined && event.kind !== "meta") continue;
          summarizer.add(event, line, index);
          switch (event.kind) {
            case "meta":
              runId = event.run_id;
              duplicateOf = this.#runs.get(runId);
              if (duplicateOf !== undefined) break reading;
              this.#runs.set(runId, file);
              for (const writer of Object.values(writers)) writer.runId = runId;
              continue;
            case "span_start":
              spanStarts.set(event.id, event);
              spans.set(event.id, spanRecordFromStart(event));
              continue;
            case "span_end": {
              const span = spans.get(event.id);
              if (span !== undefined) {
                span.closed = true;
                span.duration_ns = event.duration_ns;
              }
              continue;
            }
            case "op": {
              if (event.storage_bytes === undefined) {
                event.storage_bytes = resolveStorageBytes(undefined, event.shape, event.dtype);
              }
              let totals = opTotals.get(event.span_id);
              if (totals === undefined) {
                totals = { ns: 0n, bytes: 0n };
                opTotals.set(event.span_id, totals);
              }
              totals.ns += u64ToBigInt(event.duration_ns);
              totals.bytes += u64ToBigInt(event.storage_bytes);
              writers.ops.push(event);
              continue;
            }
            case "tensor":
              if (event.storage_bytes === undefined) {
                event.storage_bytes = resolveStorageBytes(undefined, event.shape, event.dtype);
              }
              writers.tensors.push(event);
              continue;
            default:
              writers[TABLE_OF_KIND[event.kind]].push(event);
              continue;
          }
        }
        const pause = afterBatch?.();
        if (pause !== undefined) await pause;
      }
      if (duplicateOf !== undefined) {
        return {
          file,
          code: "duplicate_run",
          message: `${file}: run ${runId} was already read from ${duplicateOf}`,
        };
      }
      if (runId === undefined) throw new Error(`${file}: the reader returned no meta event`);
      this.#pushSpans(spans, spanStarts, opTotals);
      const summary = summarizer.finish();
      writers.runs.push(runRecord(file, summary));
      return { file, run_id: runId, trusted: summary.health.trusted, events };
    } catch (error) {
      await this.#rollback(runId, duplicateOf);
      if (TraceParseError.isInstance(error)) {
        const rejected: RejectedTrace = { file, code: error.code, message: error.message };
        if (error.line !== undefined) rejected.line = error.line;
        return rejected;
      }
      throw error;
    }
  }

  #pushSpans(
    spans: Map<string, SpanRecord>,
    starts: Map<string, SpanStart>,
    opTotals: Map<string, OpTotals>,
  ): void {
    const writer = this.#writers.spans;
    for (const cost of spanCosts(spanDocument(spans, opTotals))) {
      writer.push(spanRow(starts.get(cost.id) as SpanStart, spans.get(cost.id) as SpanRecord, cost));
    }
  }

  async #rollback(runId: string | undefined, duplicateOf: string | undefined): Promise<void> {
    if (runId === undefined || duplicateOf !== undefined) return;
    for (const writer of Object.values(this.#writers)) writer.discardRun();
    await this.#hooks.removeRun(runId);
    this.#runs.delete(runId);
  }
}
