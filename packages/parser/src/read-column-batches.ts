// The columnar form of `readTraceBatches`: the same validating read (sources, modes, line numbers,
// errors), but canonical lines are decoded from the bytes straight into a ColumnBatch's typed
// columns (no event object), and the other lines' events from the text tiers are appended to the
// same columns. One batch is reused: it is valid until the iteration goes on.
import { ColumnBatch } from "@cg/schema/core";
import type { ReadOptions } from "./line-processor.js";
import { createColumnProcessor, processChunks } from "./process-chunks.js";
import type { TraceSource } from "./trace-source.js";

export interface ColumnReadOptions extends ReadOptions {
  /** The most events in one batch (default 8,192); a batch also ends with each chunk read. */
  batchSize?: number;
}

const DEFAULT_BATCH_SIZE = 8192;

/**
 * Reads validated events into column batches: every event once, in file order (`batch.kinds`,
 * `batch.rows`, `batch.lines`, `batch.indexes` per event, values in `batch.columns[kind]`). Strict by
 * default; a defect throws after the batch holding the events before it was delivered. The batch
 * yielded is the same object each time, cleared before it is refilled: read it (or `toMessage` and
 * copy it) before asking for the next. Stopping the iteration early closes the source.
 */
export async function* readColumnBatches(
  source: TraceSource,
  options: ColumnReadOptions = {},
): AsyncGenerator<ColumnBatch, void, undefined> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!(batchSize >= 1)) throw new RangeError(`batchSize must be at least 1, got ${batchSize}`);
  const batch = new ColumnBatch();
  const processor = createColumnProcessor(source, options, batch);
  let failure: { error: unknown } | undefined;
  try {
    for await (const _ of processChunks(source, processor, batchSize)) {
      if (batch.size > 0) {
        yield batch;
        batch.clear();
      }
    }
  } catch (error) {
    failure = { error };
  }
  if (batch.size > 0) yield batch;
  if (failure !== undefined) throw failure.error;
}
