// `summarizeTraceFile`: `summarizeStream` of a file path with its lines decoded on several threads.
// The file is cut into ranges of whole lines; worker threads decode them into compact results
// (range-decoder.ts) while the main thread folds the results in file order through the same line
// processor and summarizer as a sequential read (range-merger.ts), so the result — errors, lenient
// diagnostics and their line numbers included — is the sequential one. Node-only.
import { closeSync, openSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { wrapReadFailure } from "../process-chunks.js";
import type { DecodedRange } from "../range-decoder.js";
import { RangeMerger } from "../range-merger.js";
import { type StreamSummary, type StreamSummaryOptions, summarizeStream } from "../summarize-stream.js";
import { READ_CHUNK_BYTES, readFileChunks } from "./file-chunks.js";
import { type ByteRange, readRange, splitAtLines } from "./file-ranges.js";
import type { RangeJob } from "./range-worker.js";
import { type RangeReply, RangeWorkerPool } from "./range-worker-pool.js";

export interface TraceFileSummaryOptions extends StreamSummaryOptions {
  /**
   * Threads that decode lines (default: the number of CPUs). 1 reads sequentially on the calling
   * thread, exactly as `summarizeStream`; so do files smaller than `parallelMinBytes`.
   */
  workers?: number;
  /** Bytes per range handed to a worker (default: a 32nd of the file per worker, 4 KiB to 4 MiB). */
  rangeBytes?: number;
  /** Smaller files are read sequentially (default 32 MiB: starting threads costs more). */
  parallelMinBytes?: number;
  /** Told how many bytes of the file were merged, after each range (parallel reads only). */
  onProgress?: (bytes: number, totalBytes: number) => void;
  /**
   * Threads to use instead of starting `workers` new ones (kept open for the next read).
   * @internal
   */
  pool?: RangeWorkerPool;
}

const MAX_RANGE_BYTES = 4 << 20;
const MIN_RANGE_BYTES = 4 << 10;
const DEFAULT_PARALLEL_MIN_BYTES = 32 << 20;
/** Decoded ranges waiting for the merge, per worker: a bound on memory. */
const RANGES_AHEAD_PER_WORKER = 2;

/** Summary, health and memory figures of a trace file, its lines decoded on `workers` threads. */
export async function summarizeTraceFile(
  path: string,
  options: TraceFileSummaryOptions = {},
): Promise<StreamSummary> {
  const { workers: requested, rangeBytes, parallelMinBytes, pool, onProgress, ...streamOptions } = options;
  const workers = pool?.size ?? Math.max(1, Math.floor(requested ?? availableParallelism()));
  const sequential = () => summarizeStream(readFileChunks(path), { file: path, ...streamOptions });
  let size: number;
  try {
    const stats = statSync(path);
    // A pipe or a device is read once, in order.
    if (!stats.isFile()) return sequential();
    size = stats.size;
  } catch {
    return sequential(); // reports the failure as a sequential read does
  }
  if (workers === 1 || size < (parallelMinBytes ?? DEFAULT_PARALLEL_MIN_BYTES)) return sequential();
  const ranges = splitAtLines(
    path,
    size,
    rangeBytes ?? Math.min(MAX_RANGE_BYTES, Math.max(MIN_RANGE_BYTES, Math.ceil(size / (workers * 32)))),
  );
  if (ranges.length < 2) return sequential();
  const progress = onProgress === undefined ? undefined : (range: ByteRange) => onProgress(range.end, size);
  if (pool !== undefined) return summarizeRanges(path, ranges, pool, streamOptions, progress);
  const ownPool = new RangeWorkerPool(Math.min(workers, ranges.length));
  try {
    return await summarizeRanges(path, ranges, ownPool, streamOptions, progress);
  } finally {
    await ownPool.close();
  }
}

async function summarizeRanges(
  path: string,
  ranges: readonly ByteRange[],
  pool: RangeWorkerPool,
  options: StreamSummaryOptions,
  progress: ((range: ByteRange) => void) | undefined,
): Promise<StreamSummary> {
  const merger = new RangeMerger(options.file ?? path, options);
  const jobOptions = options.maxLineLength === undefined ? {} : { maxLineLength: options.maxLineLength };
  // Decoded ranges wait for the merge in file order; this many at most are ahead of it.
  const ahead = pool.size * RANGES_AHEAD_PER_WORKER;
  const replies: (Promise<RangeReply> | undefined)[] = [];
  const request = (ordinal: number): void => {
    if (ordinal >= ranges.length) return;
    const job: RangeJob = {
      path,
      range: ranges[ordinal] as ByteRange,
      last: ordinal === ranges.length - 1,
      ordinal,
      options: jobOptions,
    };
    const reply = pool.decode(job);
    reply.catch(() => {}); // awaited in order below; an early stop must not leave it unhandled
    replies[ordinal] = reply;
  };
  for (let ordinal = 0; ordinal < ahead; ordinal++) request(ordinal);
  const fd = openSync(path, "r");
  try {
    let threadsFailed = false;
    for (let ordinal = 0; ordinal < ranges.length; ordinal++) {
      let decoded: DecodedRange | undefined;
      if (!threadsFailed) {
        try {
          decoded = (await (replies[ordinal] as Promise<RangeReply>)).range;
          request(ordinal + ahead);
        } catch {
          // A thread failed (out of memory on a huge line, say): the rest is read here.
          threadsFailed = true;
        }
        replies[ordinal] = undefined;
      }
      // A range with a line that did not decode (or that a worker could not read) is read here,
      // where its line numbers and the strict or lenient rules are known.
      if (decoded === undefined || decoded.failed) {
        merger.addBytes(
          readRange(fd, ranges[ordinal] as ByteRange, READ_CHUNK_BYTES),
          ordinal === ranges.length - 1,
        );
      } else {
        merger.addDecoded(decoded);
      }
      progress?.(ranges[ordinal] as ByteRange);
    }
  } catch (error) {
    throw wrapReadFailure(error, merger.file);
  } finally {
    closeSync(fd);
  }
  return merger.finish();
}
