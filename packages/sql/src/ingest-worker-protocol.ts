// The messages between an ingest's reading thread (ingest-worker.ts) and the thread that appends
// to DuckDB (ingest-on-worker.ts).
import { type ColumnData, columnTransferList } from "./column-buffer.js";
import type { IngestedRun, RejectedTrace } from "./ingest-trace.js";
import type { TableName } from "./tables.js";

export interface IngestWorkerData {
  files: string[];
  /** Chunks posted and not yet appended before the reading waits. */
  chunksInFlight: number;
}

/** What the reading thread posts, in order. */
export type IngestWorkerMessage =
  | { type: "chunk"; table: TableName; columns: ColumnData[]; rows: number }
  /** A rejected run: remove its rows appended so far. */
  | { type: "remove-run"; runId: string }
  /** One trace done, read or rejected (its rows may still wait in a later chunk). */
  | { type: "outcome"; outcome: IngestedRun | RejectedTrace }
  | { type: "failed"; message: string; stack?: string }
  | { type: "done" };

/** The appending thread's acknowledgement of one chunk, with its buffers handed back for reuse. */
export interface ChunkAppended {
  table: TableName;
  columns: ColumnData[];
}

/** The array buffers of a chunk's columns, for a transfer list. */
export function chunkTransferList(columns: readonly ColumnData[]): ArrayBuffer[] {
  const transfer: ArrayBuffer[] = [];
  for (const column of columns) columnTransferList(column, transfer);
  return transfer;
}
