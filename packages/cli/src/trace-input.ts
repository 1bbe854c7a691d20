import { statSync } from "node:fs";
import { open } from "node:fs/promises";
import {
  type ColumnSummaryOptions,
  type CompareStreamOptions,
  type Comparison,
  checkColumns,
  compareTraceFiles,
  parseTrace,
  type QueryStream,
  type QueryStreamOptions,
  queryTraceStream,
  type ReadOptions,
  readColumnBatches,
  type StreamCheck,
  type StreamedQueryKind,
  type StreamSummary,
  summarizeColumns,
  summarizeTraceFile,
  type TraceDocument,
  TraceParseError,
  type TraceSource,
} from "@cg/parser";
import type { ColumnBatch } from "@cg/schema/core";
import type { CliContext } from "./cli-context.js";
import { CliError } from "./cli-error.js";
import type { CommandArguments, OptionSpec } from "./command.js";
import { ExitCode } from "./exit-codes.js";
import { escapeControl } from "./format/escape-control.js";
import { progressLine } from "./format/progress-line.js";
import { positiveIntegerOption } from "./parse-command-args.js";

/** Files at least this large show a progress line on stderr (only when stderr is a terminal). */
const PROGRESS_THRESHOLD_BYTES = 64 * 1024 * 1024;
const CHUNK_BYTES = 1 << 20;

/** Fails with a clear message for a missing path, a directory or something unreadable; returns the size. */
export function checkTraceFile(path: string): number {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : String(error);
    throw new CliError({ message: `${path}: ${reason}`, exitCode: ExitCode.Usage, cause: error });
  }
  if (stats.isDirectory()) {
    throw new CliError({
      message: `${path}: is a directory, expected a trace file (.jsonl)`,
      exitCode: ExitCode.Usage,
    });
  }
  return stats.size;
}

/** `file:line: code: message`, the form of every parse diagnostic. */
export function formatParseError(error: TraceParseError, path: string): string {
  const where = error.line === undefined ? path : `${path}:${error.line}`;
  return escapeControl(`${where}: ${error.code}: ${error.message}`);
}

/** Rethrows a parse failure as a CLI error with its location; other errors pass through. */
export function asCliError(error: unknown, path: string): unknown {
  if (TraceParseError.isInstance(error)) {
    return new CliError({ message: formatParseError(error, path), exitCode: ExitCode.Usage, cause: error });
  }
  return error;
}

/** A progress line on stderr, redrawn when the share done changes; `clear` removes it. */
function progressReporter(path: string, size: number, context: CliContext) {
  let lastPercent = -1;
  const now = context.now ?? (() => performance.now());
  const started = now();
  return {
    report(done: number): void {
      const percent = Math.floor((done / size) * 100);
      if (percent === lastPercent) return;
      context.stderr(`\r\u001b[K${progressLine("reading", path, done, size, now() - started)}`);
      lastPercent = percent;
    },
    clear(): void {
      if (lastPercent >= 0) context.stderr("\r\u001b[K");
    },
  };
}

function showsProgress(size: number, context: CliContext): boolean {
  return context.stderrIsTty && size >= PROGRESS_THRESHOLD_BYTES;
}

/** The file's bytes, with a progress line on stderr for large files read in a terminal. */
async function* chunksWithProgress(
  path: string,
  size: number,
  context: CliContext,
): AsyncGenerator<Uint8Array> {
  const handle = await open(path, "r");
  const progress = progressReporter(path, size, context);
  let done = 0;
  try {
    for (;;) {
      const buffer = new Uint8Array(CHUNK_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      done += bytesRead;
      progress.report(done);
      yield bytesRead === CHUNK_BYTES ? buffer : buffer.subarray(0, bytesRead);
    }
  } finally {
    progress.clear();
    await handle.close();
  }
}

function sourceFor(path: string, size: number, context: CliContext) {
  return showsProgress(size, context) ? chunksWithProgress(path, size, context) : path;
}

/** Parses a whole trace into a document, with CLI-friendly errors. */
export async function loadTrace(
  path: string,
  context: CliContext,
  options: ReadOptions = {},
): Promise<TraceDocument> {
  const size = checkTraceFile(path);
  try {
    return await parseTrace(sourceFor(path, size, context), { file: path, ...options });
  } catch (error) {
    throw asCliError(error, path);
  }
}

/** `CG_TRACE_SPAN_BUDGET_MB`: the most memory a streamed read may give to its span table. */
function spanBudgetBytes(context: CliContext): number | undefined {
  const value = Number(context.env.CG_TRACE_SPAN_BUDGET_MB);
  return Number.isFinite(value) && value > 0 ? value * (1 << 20) : undefined;
}

/** `--workers N`, shared by the commands that read a trace in one streaming pass. */
export const workersOptionSpec: OptionSpec = {
  type: "string",
  valueName: "N",
  description:
    "threads that decode the trace beside the one that merges their results, same output (default 1: one thread; pipes and files under 32 MiB are always read on one)",
};

/**
 * The `--workers` value. Default 1: on the 2-core machine the benchmarks run on, the parallel read
 * used about twice the CPU time and was no faster (the merge on the main thread is about half the
 * work of a sequential read); see the README.
 */
export function workersOption(args: CommandArguments, commandName: string): number {
  return positiveIntegerOption(args, commandName, "workers", 1);
}

/** `CG_TRACE_PARALLEL_MIN_MB`: files smaller than this are read on one thread (default 32). */
function parallelMinBytes(context: CliContext): number | undefined {
  const text = context.env.CG_TRACE_PARALLEL_MIN_MB;
  const value = Number(text);
  return text !== undefined && text !== "" && Number.isFinite(value) && value >= 0
    ? value * (1 << 20)
    : undefined;
}

/**
 * Summary, health and memory figures in one streaming pass: memory grows with the number of spans
 * (a compact table, tens of bytes each), not with the file. With `workers` above 1 the lines of a
 * large file are decoded on that many threads (same result). CLI-friendly errors.
 */
export function streamSummary(
  path: string,
  context: CliContext,
  options: ColumnSummaryOptions = {},
  workers = 1,
): Promise<StreamSummary> {
  return streamRead(path, context, options, workers, summarizeColumns);
}

/**
 * A trace's health in one streaming pass, as `streamSummary` checks it, without computing the
 * summary's figures on one thread (no memory timeline, no rankings). CLI-friendly errors.
 */
export function streamCheck(
  path: string,
  context: CliContext,
  options: ColumnSummaryOptions = {},
  workers = 1,
): Promise<StreamCheck> {
  return streamRead(path, context, options, workers, checkColumns);
}

/** The streamed read of `streamSummary` and `streamCheck`: `oneThread` reads with one thread. */
async function streamRead<Result>(
  path: string,
  context: CliContext,
  options: ColumnSummaryOptions,
  workers: number,
  oneThread: (source: TraceSource, options: ColumnSummaryOptions) => Promise<Result | StreamSummary>,
): Promise<Result | StreamSummary> {
  const size = checkTraceFile(path);
  const budget = spanBudgetBytes(context);
  const common: ColumnSummaryOptions = {
    file: path,
    ...(budget === undefined ? {} : { spanBudgetBytes: budget }),
    ...options,
  };
  try {
    // One thread: the column reader, canonical lines decoded straight into typed columns.
    if (workers === 1) return await oneThread(sourceFor(path, size, context), common);
    const minBytes = parallelMinBytes(context);
    const parallel = {
      ...common,
      workers,
      ...(minBytes === undefined ? {} : { parallelMinBytes: minBytes }),
    };
    if (!showsProgress(size, context)) return await summarizeTraceFile(path, parallel);
    const progress = progressReporter(path, size, context);
    try {
      return await summarizeTraceFile(path, { ...parallel, onProgress: progress.report });
    } finally {
      progress.clear();
    }
  } catch (error) {
    throw asCliError(error, path);
  }
}

/**
 * One query kind in bounded memory: a streaming pass, and more passes over the file for lists that
 * grow with the trace when they are written out (see `queryTraceStream`). CLI-friendly errors for
 * the first pass; the caller maps errors of later passes with `asCliError`.
 */
export async function streamQuery<K extends StreamedQueryKind>(
  path: string,
  context: CliContext,
  kind: K,
  options: QueryStreamOptions = {},
): Promise<QueryStream<K>> {
  const size = checkTraceFile(path);
  const budget = spanBudgetBytes(context);
  try {
    return await queryTraceStream(() => sourceFor(path, size, context), kind, {
      file: path,
      ...(budget === undefined ? {} : { spanBudgetBytes: budget }),
      ...options,
    });
  } catch (error) {
    throw asCliError(error, path);
  }
}

/** `compareTraceFiles` of two paths: each trace streamed in turn. CLI-friendly errors, naming the file. */
export async function streamComparison(
  baselinePath: string,
  candidatePath: string,
  context: CliContext,
  options: CompareStreamOptions = {},
): Promise<Comparison> {
  const baselineSize = checkTraceFile(baselinePath);
  const candidateSize = checkTraceFile(candidatePath);
  const budget = spanBudgetBytes(context);
  const withBudget = budget === undefined ? options : { spanBudgetBytes: budget, ...options };
  try {
    return await compareTraceFiles(
      () => sourceFor(baselinePath, baselineSize, context),
      () => sourceFor(candidatePath, candidateSize, context),
      // Each side's errors name its own file.
      { ...withBudget, baselineFile: baselinePath, candidateFile: candidatePath },
    );
  } catch (error) {
    const file = TraceParseError.isInstance(error) ? error.file : undefined;
    throw asCliError(error, file ?? baselinePath);
  }
}

/**
 * Streams a trace as column batches (bounded memory), with CLI-friendly errors. The reader fills
 * one batch again for each step: a batch is read through before the next is asked for.
 */
export async function* streamTraceBatches(path: string, context: CliContext): AsyncGenerator<ColumnBatch> {
  const size = checkTraceFile(path);
  try {
    yield* readColumnBatches(sourceFor(path, size, context), { file: path });
  } catch (error) {
    throw asCliError(error, path);
  }
}

/**
 * A trace for a command that streams it more than once (`view`): a fresh source per read, each
 * with its progress line on a terminal, and the read options every streamed command sets.
 */
export function rereadableTrace(
  path: string,
  context: CliContext,
): { read: () => TraceSource; options: { file: string; spanBudgetBytes?: number } } {
  const size = checkTraceFile(path);
  const budget = spanBudgetBytes(context);
  return {
    read: () => sourceFor(path, size, context),
    options: { file: path, ...(budget === undefined ? {} : { spanBudgetBytes: budget }) },
  };
}
