// `@cg/parser`, the Node entry: everything in `@cg/parser/core`, plus file paths (a `string` or a
// `file:` URL) as trace sources. Loading this module installs the file reader, hence the
// package's `sideEffects` entry for it.
import { readFileChunks } from "./node/file-chunks.js";
import { installFileChunkReader } from "./trace-source.js";

installFileChunkReader(readFileChunks);

export * from "./core.js";
export { summarizeTraceFile, type TraceFileSummaryOptions } from "./node/summarize-trace-file.js";
