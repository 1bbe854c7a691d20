// The reading thread of an ingest on two threads: it reads and decodes the traces through the
// parser, folds the summaries and fills the tables' column buffers (ingest-trace.ts, as on one
// thread), and posts each filled chunk, its buffers transferred, to the thread that owns the DuckDB
// connection and appends them (ingest-on-worker.ts). Chunks wait for that thread's acknowledgement,
// at most `chunksInFlight` at a time, so memory stays flat however far the reading runs ahead.
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { TraceIngest, type Writers } from "./ingest-trace.js";
import {
  type ChunkAppended,
  chunkTransferList,
  type IngestWorkerData,
  type IngestWorkerMessage,
} from "./ingest-worker-protocol.js";
import { TableRows } from "./table-rows.js";
import { TABLES } from "./tables.js";

async function readTraces(port: MessagePort, data: IngestWorkerData): Promise<void> {
  const post = (message: IngestWorkerMessage, transfer?: ArrayBuffer[]) =>
    port.postMessage(message, transfer);
  let inFlight = 0;
  let resume: (() => void) | undefined;
  const writers = {} as Writers;
  port.on("message", ({ table, columns }: ChunkAppended) => {
    writers[table].recycle(columns);
    inFlight--;
    if (resume !== undefined && inFlight < data.chunksInFlight) {
      const waiting = resume;
      resume = undefined;
      waiting();
    }
  });
  for (const table of TABLES) {
    writers[table.name] = new TableRows(
      table,
      (columns, rows) => {
        post({ type: "chunk", table: table.name, columns, rows }, chunkTransferList(columns));
        inFlight++;
      },
      { detach: true },
    );
  }
  const ingest = new TraceIngest(writers, {
    removeRun: (runId) => post({ type: "remove-run", runId }),
    afterBatch: () =>
      inFlight < data.chunksInFlight
        ? undefined
        : new Promise<void>((done) => {
            resume = done;
          }),
  });
  try {
    for (const file of data.files) post({ type: "outcome", outcome: await ingest.ingest(file) });
    for (const writer of Object.values(writers)) writer.emit();
    post({ type: "done" });
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    post({
      type: "failed",
      message: failure.message,
      ...(failure.stack === undefined ? {} : { stack: failure.stack }),
    });
  }
}

if (parentPort !== null) void readTraces(parentPort, workerData as IngestWorkerData);
