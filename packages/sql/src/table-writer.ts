// Rows of one table written straight into DuckDB data chunks (2,048 rows, DuckDB's vector size),
// column by column through typed buffers, each full chunk handed to the table's appender, so
// memory stays bounded whatever the trace's size and no JS object is made per row or cell.
import type { DuckDBAppender, DuckDBConnection } from "@duckdb/node-api";
import { DuckDBDataChunk } from "@duckdb/node-api";
import duckdb from "@duckdb/node-bindings";
import { type ColumnBuffer, columnBuffer } from "./column-buffer.js";
import { quoteIdentifier, type Table } from "./tables.js";

export const CHUNK_ROWS = 2048;
/**
 * Chunks after which an appender hands its rows to the table. The appender otherwise buffers up to
 * 100 chunks per table in native memory; flushing every few keeps a large trace's ingest flat
 * (measured on a 100 MB trace: 192 MiB peak RSS at 4, 253 MiB without).
 */
const FLUSH_EVERY_CHUNKS = 4;

/** Stores one row: `run_id`, then each column's property of the record. */
type RowWriter = (
  buffers: readonly ColumnBuffer[],
  row: number,
  runId: string,
  record: Readonly<Record<string, unknown>>,
) => void;

/**
 * The row writer of a table, compiled once from its column list: one statement per column with a
 * fixed property name and buffer, so each property read and each buffer call sees one shape (a
 * loop over column names reads every property by a computed key, which is several times slower
 * per cell). Column names come from the dataset layout, never from input.
 */
function rowWriter(table: Table): RowWriter {
  const statements = table.columns.map((column, index) =>
    index === 0
      ? "buffers[0].set(row, runId);"
      : `buffers[${index}].set(row, record[${JSON.stringify(column.name)}]);`,
  );
  return new Function("buffers", "row", "runId", "record", statements.join("\n")) as RowWriter;
}

export class TableWriter {
  readonly table: Table;
  readonly #appender: DuckDBAppender;
  /**
   * The one data chunk this table's rows go through: reset and refilled for each append (the
   * appender copies it), so no native chunk waits for the garbage collector to be freed.
   */
  readonly #chunk: DuckDBDataChunk;
  readonly #buffers: ColumnBuffer[];
  readonly #writeRow: RowWriter;
  #rows = 0;
  #chunks = 0;
  /** Pending rows before the current run's first. */
  #runStart = 0;
  #runId: string | undefined;

  private constructor(table: Table, appender: DuckDBAppender) {
    this.table = table;
    this.#appender = appender;
    this.#chunk = DuckDBDataChunk.create(table.columns.map((_, index) => appender.columnType(index)));
    this.#buffers = table.columns.map((column) => columnBuffer(column.type, CHUNK_ROWS));
    this.#writeRow = rowWriter(table);
  }

  static async open(connection: DuckDBConnection, table: Table): Promise<TableWriter> {
    return new TableWriter(table, await connection.createAppender(table.name));
  }

  /** The run the next rows belong to. */
  set runId(runId: string) {
    this.#runId = runId;
    this.#runStart = this.#rows;
  }

  /**
   * Appends one row: each column's value is the record's property of the column's name (an event
   * for the event tables); absent is NULL.
   */
  push(record: Readonly<Record<string, unknown>>): void {
    const runId = this.#runId;
    if (runId === undefined) throw new Error(`rows for ${this.table.name} before the run's meta event`);
    this.#writeRow(this.#buffers, this.#rows, runId, record);
    if (++this.#rows >= CHUNK_ROWS) this.#appendChunk();
  }

  /** Hands pending rows to DuckDB and makes every appended row visible to queries. */
  flush(): void {
    this.#appendChunk();
    this.#appender.flushSync();
  }

  /** Drops the current run's rows not yet handed to DuckDB. */
  discardRun(): void {
    for (const buffer of this.#buffers) buffer.truncate(this.#runStart);
    this.#rows = this.#runStart;
  }

  close(): void {
    this.#appendChunk();
    this.#appender.closeSync();
  }

  #appendChunk(): void {
    const rows = this.#rows;
    if (rows === 0) return;
    const chunk = this.#chunk;
    chunk.reset();
    chunk.rowCount = rows;
    const buffers = this.#buffers;
    for (let index = 0; index < buffers.length; index++) {
      (buffers[index] as ColumnBuffer).write(duckdb.data_chunk_get_vector(chunk.chunk, index), rows);
    }
    this.#appender.appendDataChunk(chunk);
    if (++this.#chunks % FLUSH_EVERY_CHUNKS === 0) this.#appender.flushSync();
    this.#rows = 0;
    this.#runStart = 0;
  }
}

export function deleteRunSql(table: Table): string {
  return `DELETE FROM ${quoteIdentifier(table.name)} WHERE run_id = $1`;
}
