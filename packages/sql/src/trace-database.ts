// An embedded DuckDB database holding many traces: the tables of `cg-dataset/1` and the views.
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { expandInputs } from "./expand-inputs.js";
import { type IngestedRun, type RejectedTrace, TraceIngest, type Writers } from "./ingest-trace.js";
import { SqlError } from "./sql-error.js";
import { TableWriter } from "./table-writer.js";
import { createTableSql, TABLES, type TableName } from "./tables.js";
import { createViewsSql } from "./views.js";

export interface IngestProgress {
  /** Traces handled so far, and in all. */
  done: number;
  total: number;
  file: string;
}

export interface OpenTraceDatabaseOptions {
  /** Trace files, folders (every `.jsonl` below) and glob patterns. */
  traces: readonly string[];
  /** Fail on the first invalid trace instead of leaving it out (default false). */
  strict?: boolean;
  /** A DuckDB database file to write to; in memory by default. */
  path?: string;
  /**
   * DuckDB settings for the instance, e.g. `{ memory_limit: "256MB", threads: "2" }`. With a
   * `path` and a `memory_limit`, the tables of a trace larger than memory stay on disk. Unless set
   * here, `allocator_flush_threshold` is 8 MB (see `INGEST_SETTINGS`).
   */
  duckdb?: Record<string, string>;
  /** Called after each trace. */
  onProgress?: (progress: IngestProgress) => void;
}

/** What the ingest did: runs read (untrusted ones included, marked) and traces left out. */
export interface IngestReport {
  runs: IngestedRun[];
  rejected: RejectedTrace[];
}

/** One column of a query result. */
export interface ResultColumn {
  name: string;
  type: string;
}

export interface QueryResult {
  columns: ResultColumn[];
  /** JS values: UBIGINT as bigint, lists as arrays, maps as `{ key, value }[]`, NULL as null. */
  rows: unknown[][];
}

export class TraceDatabase {
  readonly instance: DuckDBInstance;
  /** The DuckDB connection, for anything the methods here do not cover. */
  readonly connection: DuckDBConnection;
  readonly report: IngestReport;

  constructor(instance: DuckDBInstance, connection: DuckDBConnection, report: IngestReport) {
    this.instance = instance;
    this.connection = connection;
    this.report = report;
  }

  /** Runs one SQL statement; a failure becomes an `SqlError` with DuckDB's message. */
  async query(sql: string): Promise<QueryResult> {
    let reader: Awaited<ReturnType<DuckDBConnection["runAndReadAll"]>>;
    try {
      reader = await this.connection.runAndReadAll(sql);
    } catch (error) {
      // DuckDB's first line says what is wrong; the rest points into the SQL text with a caret.
      const text = error instanceof Error ? error.message : String(error);
      throw new SqlError({
        message: `query failed: ${text.split("\n")[0]}`,
        code: "query_failed",
        cause: error,
      });
    }
    const names = reader.columnNames();
    const types = reader.columnTypes();
    return {
      columns: names.map((name, index) => ({ name, type: String(types[index]) })),
      rows: reader.getRowsJS() as unknown[][],
    };
  }

  /** Tables and views with their columns, in a stable order. */
  async describe(): Promise<{ name: string; kind: "table" | "view"; columns: ResultColumn[] }[]> {
    const result = await this.query(
      `SELECT c.table_name, t.table_type, c.column_name, c.data_type
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_catalog, table_schema, table_name)
       WHERE c.table_schema = 'main'
       ORDER BY t.table_type, c.table_name, c.ordinal_position`,
    );
    const byName = new Map<string, { name: string; kind: "table" | "view"; columns: ResultColumn[] }>();
    for (const [table, tableType, column, type] of result.rows as string[][]) {
      const name = table as string;
      let entry = byName.get(name);
      if (entry === undefined) {
        entry = { name, kind: tableType === "VIEW" ? "view" : "table", columns: [] };
        byName.set(name, entry);
      }
      entry.columns.push({ name: column as string, type: type as string });
    }
    const order = (name: string) => {
      const index = TABLES.findIndex((table) => table.name === name);
      return index === -1 ? TABLES.length : index;
    };
    return [...byName.values()].sort(
      (left, right) => order(left.name) - order(right.name) || left.name.localeCompare(right.name),
    );
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}

/**
 * DuckDB settings of an ingesting instance. DuckDB keeps up to 128 MB (its default) of freed memory
 * in its allocator's caches between tasks; an ingest runs many small append tasks, so a low
 * threshold keeps freed memory from piling up (1 GiB trace, 32 MB memory limit: peak RSS 295–317 MiB
 * with it, 340 MiB without, in single runs on a loaded machine).
 */
export const INGEST_SETTINGS: Readonly<Record<string, string>> = { allocator_flush_threshold: "8MB" };

async function openWriters(connection: DuckDBConnection): Promise<Writers> {
  const writers: Partial<Writers> = {};
  for (const table of TABLES) writers[table.name] = await TableWriter.open(connection, table);
  return writers as Writers;
}

/** Creates the tables and views on a connection. */
export async function createSchema(connection: DuckDBConnection): Promise<void> {
  for (const table of TABLES) await connection.run(createTableSql(table));
  for (const statement of createViewsSql()) await connection.run(statement);
}

/** Reads traces into the tables of `connection`, one at a time. */
export async function ingestTraces(
  connection: DuckDBConnection,
  files: readonly string[],
  options: Pick<OpenTraceDatabaseOptions, "strict" | "onProgress"> = {},
): Promise<IngestReport> {
  const writers = await openWriters(connection);
  const ingest = new TraceIngest(connection, writers);
  const report: IngestReport = { runs: [], rejected: [] };
  try {
    for (const [index, file] of files.entries()) {
      const outcome = await ingest.ingest(file);
      if ("run_id" in outcome) {
        report.runs.push(outcome);
      } else {
        if (options.strict === true) {
          const where = outcome.line === undefined ? "" : `:${outcome.line}`;
          throw new SqlError({
            message: `${outcome.file}${where}: ${outcome.message}`,
            code: outcome.code === "duplicate_run" ? "duplicate_run" : "invalid_trace",
            file: outcome.file,
          });
        }
        report.rejected.push(outcome);
      }
      options.onProgress?.({ done: index + 1, total: files.length, file });
    }
  } finally {
    // Closing flushes what the appenders still hold.
    for (const writer of Object.values(writers)) writer.close();
  }
  return report;
}

/**
 * Opens an embedded DuckDB database and reads every trace into it through the parser, a bounded
 * chunk at a time. Invalid traces are reported in `report.rejected` (or fail the call with
 * `strict`); untrusted ones are kept with `runs.trusted = false`.
 */
export async function openTraceDatabase(options: OpenTraceDatabaseOptions): Promise<TraceDatabase> {
  const files = await expandInputs(options.traces);
  const instance = await DuckDBInstance.create(options.path ?? ":memory:", {
    ...INGEST_SETTINGS,
    ...options.duckdb,
  });
  const connection = await instance.connect();
  try {
    await createSchema(connection);
    const report = await ingestTraces(connection, files, options);
    return new TraceDatabase(instance, connection, report);
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
}

export type { TableName };
