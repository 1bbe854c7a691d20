// One trace into the tables' rows, read once: events stream from the parser's validating reader
// in batches; each is folded into the parser's streaming summary (health and figures for `runs`)
// and written into its table's column buffers. Spans are held in the parser's span columns (no
// object per span) until the end, where the span tree gives depth, path and times. Where the
// filled chunks go (DuckDB on this thread, or another thread) is the rows' sink; nothing here
// touches DuckDB.
import { resolveStorageBytes } from "@cg/memory";
import {
  createTraceSummarizer,
  readTraceBatches,
  SpanCostCollector,
  type SpanCostColumns,
  type StreamSummary,
  TraceParseError,
} from "@cg/parser";
import { SqlError } from "./sql-error.js";
import { CHUNK_ROWS, type TableRows } from "./table-rows.js";
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

/**
 * Events per batch from the reader. A batch's event objects live until the batch is written, so
 * with the reader's default of 4,096 a scavenge of the reading thread's small young generation
 * (ingest-worker-start.ts) copies more of them: 1,024 took 2–11 % off the ingest's CPU time in 6
 * of 6 paired 1 GiB runs, at the same peak RSS.
 */
const BATCH_SIZE = 1024;

export interface TraceIngestHooks {
  /**
   * Removes the rows of a rejected run that already left the writers (those still pending were
   * discarded first).
   */
  removeRun(runId: string): Promise<void> | void;
  /** Called after each batch of events: a promise holds the reading until it settles. */
  afterBatch?: () => Promise<void> | undefined;
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

/**
 * A `spans` row: the span_start's fields and the span_end's duration as the span table holds them,
 * then what the span tree gives. Every column of the table is named here (a test checks it).
 */
export function spanRow(costs: SpanCostColumns, row: number): Record<string, unknown> {
  const span = costs.record(row);
  return {
    id: span.id,
    parent_id: span.parent_id,
    name: span.name,
    start_ns: span.start_ns,
    span_kind: span.kind,
    measured: span.measured,
    step: span.step,
    duration_ns: span.duration_ns,
    closed: span.closed,
    depth: costs.depth(row),
    path: costs.path(row),
    total_ns: costs.totalNs(row),
    self_ns: costs.selfNs(row),
  };
}

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
    // The spans in typed columns (tens of bytes each, not objects): the span tree's figures need
    // every span until the end, and objects per span made the reading thread's heap grow with the
    // trace.
    const spans = new SpanCostCollector();
    const writers = this.#writers;
    const summarizer = createTraceSummarizer({ file });
    const afterBatch = this.#hooks.afterBatch;
    try {
      reading: for await (const batch of readTraceBatches(file, { file, batchSize: BATCH_SIZE })) {
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
            case "span_end":
              spans.push(event);
              continue;
            case "op": {
              if (event.storage_bytes === undefined) {
                event.storage_bytes = resolveStorageBytes(undefined, event.shape, event.dtype);
              }
              spans.push(event);
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
      const costs = spans.finish();
      const rows = costs.rowsInIdOrder();
      for (let index = 0; index < rows.length; index++) {
        writers.spans.push(spanRow(costs, rows[index] as number));
        // Tens of thousands of spans fill many chunks at once: the same hold as for the events
        // keeps them from all waiting in memory.
        if ((index + 1) % CHUNK_ROWS === 0) {
          const pause = afterBatch?.();
          if (pause !== undefined) await pause;
        }
      }
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

  async #rollback(runId: string | undefined, duplicateOf: string | undefined): Promise<void> {
    if (runId === undefined || duplicateOf !== undefined) return;
    for (const writer of Object.values(this.#writers)) writer.discardRun();
    await this.#hooks.removeRun(runId);
    this.#runs.delete(runId);
  }
}
