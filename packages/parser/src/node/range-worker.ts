// A worker thread of the parallel file reader: decodes the byte ranges it is sent and posts their
// compact results back (see range-decoder.ts). Node-only; started by summarize-trace-file.ts.
import { closeSync, openSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { type RangeDecodeOptions, RangeDecoder, rangeTransferList } from "../range-decoder.js";
import { READ_CHUNK_BYTES } from "./file-chunks.js";
import { type ByteRange, readRange } from "./file-ranges.js";

export interface RangeJob {
  path: string;
  range: ByteRange;
  /** The range ends the file. */
  last: boolean;
  /** The range's place in the file, echoed back. */
  ordinal: number;
  options: RangeDecodeOptions;
}

function decodeJob(job: RangeJob) {
  const decoder = new RangeDecoder(job.options);
  const fd = openSync(job.path, "r");
  try {
    for (const chunk of readRange(fd, job.range, READ_CHUNK_BYTES)) decoder.push(chunk);
  } finally {
    closeSync(fd);
  }
  return decoder.finish(job.last);
}

parentPort?.on("message", (job: RangeJob) => {
  try {
    const range = decodeJob(job);
    parentPort?.postMessage({ ordinal: job.ordinal, range }, rangeTransferList(range));
  } catch (error) {
    // A read failure (the file changed under us): the main thread reads the range itself and
    // reports whatever it finds, as a sequential read would.
    parentPort?.postMessage({ ordinal: job.ordinal, error: String(error) });
  }
});
