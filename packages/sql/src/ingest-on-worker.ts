// An ingest on two threads: a worker reads, decodes and fills the column buffers
// (ingest-worker.ts) while this thread, which owns the DuckDB connection, appends the chunks it
// posts, in the order posted, so the tables hold the same rows in the same order as an ingest on
// one thread. DuckDB's append work (about as much CPU as the decoding) then runs beside the
// decoding instead of after it.
import { on } from "node:events";
import type { ResourceLimits } from "node:worker_threads";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { IngestProgress } from "./ingest-progress.js";
import { type IngestReport, recordOutcome } from "./ingest-trace.js";
import { type ChunkAppended, chunkTransferList, type IngestWorkerMessage } from "./ingest-worker-protocol.js";
import { startIngestWorker } from "./ingest-worker-start.js";
import { ChunkAppender, deleteRunSql } from "./table-writer.js";
import { TABLES, type TableName } from "./tables.js";

/**
 * Chunks the worker may have posted and this thread not yet appended: enough to keep both threads
 * busy (a batch of events fills a chunk or two of a few tables), few enough to keep memory flat.
 */
const CHUNKS_IN_FLIGHT = 16;

export async function ingestOnWorker(
  connection: DuckDBConnection,
  files: readonly string[],
  options: {
    strict?: boolean;
    onProgress?: (progress: IngestProgress) => void;
    /** The reading thread's heap limits (default READING_HEAP_LIMITS). */
    readingHeap?: ResourceLimits;
  },
): Promise<IngestReport> {
  const appenders = {} as Record<TableName, ChunkAppender>;
  for (const table of TABLES) appenders[table.name] = await ChunkAppender.open(connection, table);
  const report: IngestReport = { runs: [], rejected: [] };
  const worker = startIngestWorker(
    { files: [...files], chunksInFlight: CHUNKS_IN_FLIGHT },
    options.readingHeap,
  );
  // The worker waits for messages until it is terminated, so an exit means it failed.
  const exited = new AbortController();
  worker.once("exit", () => exited.abort());
  // What the worker died of, when it did (its heap limit, for one).
  let crash: unknown;
  worker.once("error", (error) => {
    crash = error;
  });
  let done = 0;
  try {
    for await (const [message] of on(worker, "message", { signal: exited.signal })) {
      const posted = message as IngestWorkerMessage;
      switch (posted.type) {
        case "chunk":
          appenders[posted.table].append(posted.columns, posted.rows);
          worker.postMessage(
            { table: posted.table, columns: posted.columns } satisfies ChunkAppended,
            chunkTransferList(posted.columns),
          );
          break;
        case "remove-run":
          for (const table of TABLES) {
            appenders[table.name].flush();
            await connection.run(deleteRunSql(table), [posted.runId]);
          }
          break;
        case "outcome":
          recordOutcome(report, posted.outcome, options.strict);
          options.onProgress?.({ done: ++done, total: files.length, file: posted.outcome.file });
          break;
        case "failed":
          throw Object.assign(
            new Error(posted.message),
            posted.stack === undefined ? {} : { stack: posted.stack },
          );
        case "done":
          return report;
      }
    }
  } catch (error) {
    if (crash !== undefined) throw crash;
    if (exited.signal.aborted && error instanceof Error && error.name === "AbortError") {
      throw new Error("the ingest's reading thread stopped before it finished");
    }
    throw error;
  } finally {
    await worker.terminate();
    // Closing flushes what the appenders still hold.
    for (const appender of Object.values(appenders)) appender.close();
  }
  throw new Error("the ingest's reading thread stopped before it finished");
}
