// One trace into the tables' rows, read once: the parser's validating reader decodes the lines
// into column batches; each batch is folded into the parser's streaming summary (health and
// figures for `runs`) and its rows are copied column by column into their table's column buffers
// (no event object for the canonical lines of the event tables). Spans are held in the parser's span columns (no
// object per span) until the end, where the span tree gives depth, path and times. Where the
// filled chunks go (DuckDB on this thread, or another thread) is the rows' sink; nothing here
// touches DuckDB.
import { type SpanCostColumns, type StreamSummary, summarizeColumns, TraceParseError } from "@cg/parser";
import {
  type ColumnBatch,
  EVENT_KINDS,
  type EventKind,
  type KindColumns,
  type TraceEvent,
} from "@cg/schema/core";
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
 * Events per column batch. A batch holds typed columns and its string dictionary, no event object
 * per line (the 1,024 of the event path kept scavenges small); the reader's default of 8,192 reads
 * as fast, and the hold after each batch still comes every few chunks per table.
 */
const BATCH_SIZE = 8192;

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

/** Thrown from the read to stop it at a duplicate run's meta line. */
const STOP_READING = new Error("stop reading: duplicate run");

/** The table of each event kind code whose rows come from the batch columns (not meta or spans). */
const writerOfKind: (TableName | undefined)[] = EVENT_KINDS.map((kind) =>
  kind === "meta" || kind === "span_start" || kind === "span_end"
    ? undefined
    : TABLE_OF_KIND[kind as Exclude<EventKind, "meta" | "span_start" | "span_end">],
);

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
    const writers = this.#writers;
    // Each kind code's table rows, looked up once rather than by name per row.
    const rowsOfKind = writerOfKind.map((table) => (table === undefined ? undefined : writers[table]));
    const afterBatch = this.#hooks.afterBatch;
    const onEvent = (event: TraceEvent): void => {
      if (event.kind !== "meta") return;
      runId = event.run_id;
      duplicateOf = this.#runs.get(runId);
      if (duplicateOf !== undefined) throw STOP_READING;
      this.#runs.set(runId, file);
      for (const writer of Object.values(writers)) writer.runId = runId;
    };
    // Rows are copied from the batch's columns into the tables' buffers: no event object for the
    // canonical lines of the bulk kinds (ops, tensors, memory).
    const onBatch = (batch: ColumnBatch): Promise<void> | undefined => {
      events += batch.size;
      if (runId === undefined) return afterBatch?.();
      const { kinds, rows } = batch;
      for (let at = 0; at < batch.size; at++) {
        const code = kinds[at] as number;
        const writer = rowsOfKind[code];
        if (writer === undefined) continue; // meta and span lines: the summary's span table
        writer.pushColumns(batch, batch.columns[code] as KindColumns, rows[at] as number);
      }
      return afterBatch?.();
    };
    try {
      let summary: StreamSummary;
      try {
        summary = await summarizeColumns(file, {
          file,
          batchSize: BATCH_SIZE,
          // The spans' costs come from the summary's own span table (typed columns, tens of bytes
          // a span, not objects), its ops summed from the op columns.
          spanCosts: true,
          eventKinds: ["meta"],
          onEvent,
          onBatch,
        });
      } catch (error) {
        if (error !== STOP_READING) throw error;
        return {
          file,
          code: "duplicate_run",
          message: `${file}: run ${runId} was already read from ${duplicateOf}`,
        };
      }
      if (runId === undefined) throw new Error(`${file}: the reader returned no meta event`);
      const costs = summary.spanCosts;
      if (costs === undefined) throw new Error(`${file}: the summary returned no span costs`);
      const order = costs.rowsInIdOrder();
      for (let index = 0; index < order.length; index++) {
        writers.spans.push(spanRow(costs, order[index] as number));
        // Tens of thousands of spans fill many chunks at once: the same hold as for the events
        // keeps them from all waiting in memory.
        if ((index + 1) % CHUNK_ROWS === 0) {
          const pause = afterBatch?.();
          if (pause !== undefined) await pause;
        }
      }
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
