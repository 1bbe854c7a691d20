// Rows of one table collected column by column and handed to DuckDB's appender one data chunk
// (2,048 rows, DuckDB's vector size) at a time, so memory stays bounded whatever the trace's size.
import {
  type DuckDBAppender,
  type DuckDBConnection,
  DuckDBDataChunk,
  type DuckDBType,
  type JS,
  JSToDuckDBValueConverter,
} from "@duckdb/node-api";
import { quoteIdentifier, type Table } from "./tables.js";

export const CHUNK_ROWS = 2048;
/**
 * Chunks after which an appender hands its rows to the table. The appender otherwise buffers up to
 * 100 chunks per table in native memory; flushing every few keeps a large trace's ingest flat
 * (measured on a 100 MB trace: 192 MiB peak RSS at 4, 253 MiB without).
 */
const FLUSH_EVERY_CHUNKS = 4;

/** A JS value for a column: string, boolean, number, bigint, array, `{ key, value }[]` or null. */
export type CellValue = string | boolean | number | bigint | readonly unknown[] | null;

export class TableWriter {
  readonly table: Table;
  readonly #appender: DuckDBAppender;
  readonly #types: DuckDBType[];
  /** Every column; `run_id` first, filled from the current run. */
  readonly #columns: CellValue[][];
  #rows = 0;
  #chunks = 0;
  /** Pending rows before the current run's first. */
  #runStart = 0;
  #runId: string | undefined;

  private constructor(table: Table, appender: DuckDBAppender) {
    this.table = table;
    this.#appender = appender;
    this.#types = table.columns.map((_, index) => appender.columnType(index));
    this.#columns = table.columns.map(() => []);
  }

  static async open(connection: DuckDBConnection, table: Table): Promise<TableWriter> {
    return new TableWriter(table, await connection.createAppender(table.name));
  }

  /** The run the next rows belong to. */
  set runId(runId: string) {
    this.#runId = runId;
    this.#runStart = this.#rows;
  }

  /** Appends one row: the values of every column but `run_id`, in column order. */
  push(values: readonly CellValue[]): void {
    const runId = this.#runId;
    if (runId === undefined) throw new Error(`rows for ${this.table.name} before the run's meta event`);
    const columns = this.#columns;
    (columns[0] as CellValue[]).push(runId);
    for (let index = 1; index < columns.length; index++) {
      (columns[index] as CellValue[]).push(values[index - 1] ?? null);
    }
    if (++this.#rows >= CHUNK_ROWS) this.#appendChunk();
  }

  /** Hands pending rows to DuckDB and makes every appended row visible to queries. */
  flush(): void {
    this.#appendChunk();
    this.#appender.flushSync();
  }

  /** Drops the current run's rows not yet handed to DuckDB. */
  discardRun(): void {
    for (const column of this.#columns) column.length = this.#runStart;
    this.#rows = this.#runStart;
  }

  close(): void {
    this.#appendChunk();
    this.#appender.closeSync();
  }

  #appendChunk(): void {
    const rows = this.#rows;
    if (rows === 0) return;
    const chunk = DuckDBDataChunk.create(this.#types, rows);
    chunk.setColumnsConverted(this.#columns as JS[][], JSToDuckDBValueConverter);
    this.#appender.appendDataChunk(chunk);
    if (++this.#chunks % FLUSH_EVERY_CHUNKS === 0) this.#appender.flushSync();
    for (const column of this.#columns) column.length = 0;
    this.#rows = 0;
    this.#runStart = 0;
  }
}

export function deleteRunSql(table: Table): string {
  return `DELETE FROM ${quoteIdentifier(table.name)} WHERE run_id = $1`;
}
