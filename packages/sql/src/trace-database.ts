// An embedded DuckDB database holding many traces: the tables of `cg-dataset/1` and the views.
import { stat } from "node:fs/promises";
import type { ResourceLimits } from "node:worker_threads";
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { type ExpandInputsOptions, expandInputs } from "./expand-inputs.js";
import { ingestOnWorker } from "./ingest-on-worker.js";
import type { IngestProgress } from "./ingest-progress.js";
import { type IngestReport, recordOutcome, TraceIngest, type Writers } from "./ingest-trace.js";
import { isWorkerOutOfMemory } from "./ingest-worker-start.js";
import { lockDown, type SandboxScope } from "./sandbox.js";
import { SqlError } from "./sql-error.js";
import { deleteRunSql, TableWriter } from "./table-writer.js";
import { createTableSql, TABLES, type TableName } from "./tables.js";
import { firstLine, type QueryOptions, runUserSql } from "./user-statements.js";
import { createViewsSql } from "./views.js";

export interface OpenTraceDatabaseOptions extends ExpandInputsOptions {
  /**
   * Trace files and folders (every `.jsonl` below), taken literally: `run[1].jsonl` is that file.
   * With `glob: true`, inputs with pattern characters are tinyglobby patterns.
   */
  traces: readonly string[];
  /**
   * Leave the database unsandboxed (default false). Sandboxed, `query` runs with DuckDB's external
   * access off and its configuration locked: no file, network or extension, only the statement
   * types of `SANDBOX_STATEMENT_TYPES`. Lift it only for SQL you trust.
   */
  allowExternalAccess?: boolean;
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
  /**
   * Read and decode the traces on a worker thread while this one appends to DuckDB (true), or
   * all on this thread (false). Default: a worker when the inputs add up to 32 MiB or more.
   * Either way the tables, rows and their order are the same.
   */
  worker?: boolean;
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
  #sandboxed = false;

  constructor(instance: DuckDBInstance, connection: DuckDBConnection, report: IngestReport) {
    this.instance = instance;
    this.connection = connection;
    this.report = report;
  }

  /** Whether `sandbox` has locked this database down. */
  get sandboxed(): boolean {
    return this.#sandboxed;
  }

  /**
   * Locks the instance down for user SQL (see `lockDown`): queries may then read only the files
   * and folders of `scope` and run only `SANDBOX_STATEMENT_TYPES`. Call it once everything the
   * queries need (tables, views) is in place; it cannot be undone, and a second call does nothing.
   */
  async sandbox(scope: SandboxScope = {}): Promise<void> {
    if (this.#sandboxed) return;
    try {
      await lockDown(this.connection, scope);
    } catch (error) {
      throw new SqlError({
        message: `sandbox failed: ${firstLine(error)}`,
        code: "duckdb_failed",
        cause: error,
      });
    }
    this.#sandboxed = true;
  }

  /**
   * Runs one SQL statement (several with `multipleStatements`; the last one's rows are returned).
   * A failure, or a statement the sandbox refuses, becomes a one-line `SqlError`.
   */
  async query(sql: string, options: QueryOptions = {}): Promise<QueryResult> {
    const reader = await runUserSql(this.connection, sql, { ...options, sandboxed: this.#sandboxed });
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

/** Creates the tables and views on a connection. */
export async function createSchema(connection: DuckDBConnection): Promise<void> {
  for (const table of TABLES) await connection.run(createTableSql(table));
  for (const statement of createViewsSql()) await connection.run(statement);
}

/**
 * Inputs of at least this many bytes in all are read on a worker thread while DuckDB appends on
 * this one; below it, the thread's start (tens of milliseconds) costs more than it saves.
 */
export const WORKER_MIN_BYTES = 32 * 1024 ** 2;

async function totalBytes(files: readonly string[]): Promise<number> {
  let bytes = 0;
  for (const file of files) bytes += (await stat(file)).size;
  return bytes;
}

/** The value of a DuckDB setting on `connection`, as SQL text. */
async function currentSetting(connection: DuckDBConnection, name: string): Promise<string> {
  const reader = await connection.runAndReadAll("SELECT current_setting($1)::VARCHAR", [name]);
  return String(reader.getRows()[0]?.[0]);
}

/**
 * Reads traces into the tables of `connection`, one at a time, in one transaction: DuckDB then
 * writes each full row group of a database file once, compressed, instead of logging every
 * appended chunk and checkpointing the growing tables again and again (300 MB trace, 32 MB memory
 * limit: 7.5 s CPU instead of 11.8 s). A failed ingest leaves no row.
 *
 * DuckDB runs on one thread meanwhile (its `threads` setting is put back after): an append runs
 * on the calling thread whatever the setting, and DuckDB's other threads only add CPU time beside
 * it (100 MB trace, paired runs: 3.4–3.6 s CPU instead of 3.4–4.2 s), which on a busy machine is
 * taken from the thread that reads the traces.
 *
 * When the reading thread reaches its heap limit, the whole ingest is rolled back and read again
 * on this thread (progress then starts over).
 */
export async function ingestTraces(
  connection: DuckDBConnection,
  files: readonly string[],
  options: Pick<OpenTraceDatabaseOptions, "strict" | "onProgress" | "worker"> & {
    /** The reading thread's heap limits (default READING_HEAP_LIMITS). */
    readingHeap?: ResourceLimits;
  } = {},
): Promise<IngestReport> {
  const worker = options.worker ?? (await totalBytes(files)) >= WORKER_MIN_BYTES;
  const threads = await currentSetting(connection, "threads");
  await connection.run("SET threads = 1");
  try {
    if (worker) {
      try {
        return await inTransaction(connection, () => ingestOnWorker(connection, files, options));
      } catch (error) {
        // The reading thread's heap is capped well below this thread's (see READING_HEAP_LIMITS):
        // an input that needs more is read again here, from the start, rather than refused.
        if (!isWorkerOutOfMemory(error)) throw error;
      }
    }
    return await inTransaction(connection, () => ingestOnThisThread(connection, files, options));
  } finally {
    await connection.run(`SET threads = ${Number(threads)}`);
  }
}

/** Runs `ingest` in a transaction: committed when it returns, rolled back when it throws. */
async function inTransaction(
  connection: DuckDBConnection,
  ingest: () => Promise<IngestReport>,
): Promise<IngestReport> {
  await connection.run("BEGIN TRANSACTION");
  let report: IngestReport;
  try {
    report = await ingest();
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
  await connection.run("COMMIT");
  return report;
}

async function ingestOnThisThread(
  connection: DuckDBConnection,
  files: readonly string[],
  options: Pick<OpenTraceDatabaseOptions, "strict" | "onProgress">,
): Promise<IngestReport> {
  const writers: Partial<Record<TableName, TableWriter>> = {};
  for (const table of TABLES) writers[table.name] = await TableWriter.open(connection, table);
  const all = Object.values(writers) as TableWriter[];
  const rows = {} as Writers;
  for (const writer of all) rows[writer.table.name] = writer.rows;
  const ingest = new TraceIngest(rows, {
    async removeRun(runId) {
      for (const writer of all) {
        writer.flush();
        await connection.run(deleteRunSql(writer.table), [runId]);
      }
    },
  });
  const report: IngestReport = { runs: [], rejected: [] };
  try {
    for (const [index, file] of files.entries()) {
      recordOutcome(report, await ingest.ingest(file), options.strict);
      options.onProgress?.({ done: index + 1, total: files.length, file });
    }
  } finally {
    // Closing flushes what the appenders still hold.
    for (const writer of all) writer.close();
  }
  return report;
}

/**
 * Opens an embedded DuckDB database and reads every trace into it through the parser, a bounded
 * chunk at a time. Invalid traces are reported in `report.rejected` (or fail the call with
 * `strict`); untrusted ones are kept with `runs.trusted = false`.
 */
export async function openTraceDatabase(options: OpenTraceDatabaseOptions): Promise<TraceDatabase> {
  const files = await expandInputs(options.traces, options);
  const where = options.path ?? "in-memory database";
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(options.path ?? ":memory:", {
      ...INGEST_SETTINGS,
      ...options.duckdb,
    });
  } catch (error) {
    throw new SqlError({
      message: `${where}: ${firstLine(error)}`,
      code: "duckdb_failed",
      file: where,
      cause: error,
    });
  }
  const connection = await instance.connect();
  try {
    await createSchema(connection);
    const report = await ingestTraces(connection, files, options);
    const database = new TraceDatabase(instance, connection, report);
    // The traces are in the tables now: queries need no file at all.
    if (options.allowExternalAccess !== true) await database.sandbox();
    return database;
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    if (SqlError.isInstance(error)) throw error;
    throw new SqlError({
      message: `${where}: ${firstLine(error)}`,
      code: "duckdb_failed",
      file: where,
      cause: error,
    });
  }
}

export type { IngestReport, TableName };
