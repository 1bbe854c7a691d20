// The per-line core shared by every entry point: counts physical lines and event indexes, trims,
// decodes through @cg/schema and applies the ordering rules. Events are read into a ColumnBatch,
// which each reader turns into what it hands out (columns, event objects, a document).
//
// Bytes are read canonical-first: each line goes straight from UTF-8 bytes into the batch's columns
// through the column decoder (no text decoding, no JSON.parse), runs of lines committed together.
// A line that is not canonical (`meta`, blank, not ASCII, another writer's form, invalid) is framed
// once, decoded alone as text and sent straight to `decodeTraceLine`'s JSON.parse tiers (the
// canonical tier already refused it), which give the result or the exact error; after
// TEXT_AFTER_MISSES such lines in a row, the rest of the run is decoded as text at once.
import {
  type ColumnBatch,
  type ColumnLineReader,
  type DecodeTraceLineOptions,
  decodedColumnReader,
  decodeTraceLine,
  EVENT_KINDS,
  type EventKind,
  type FieldColumn,
  type KindColumns,
  type MetaEvent,
  RUN_CHECK,
  RUN_READ,
  RUN_STOP,
  type TraceEvent,
  trimTraceLine,
} from "@cg/schema/core";
import type { IdTable } from "./id-table.js";
import { decodeUtf8Line, decodeUtf8Lines, type LinePiece } from "./line-splitter.js";
import { StructureChecker } from "./structure-checker.js";
import { TraceParseError } from "./trace-parse-error.js";

/** Default maximum line length: 64 MiB (bytes for byte sources, UTF-16 units for text). */
export const DEFAULT_MAX_LINE_LENGTH = 64 * 1024 * 1024;

export interface ReadOptions {
  /**
   * `"strict"` (default, the reference behaviour) stops at the first defect. `"lenient"` skips bad
   * lines and out-of-order events, reporting each as a diagnostic, and reports an incomplete final
   * line (a killed writer) as `truncated` (spec §8.5).
   */
  mode?: "strict" | "lenient";
  /** Longest accepted line; longer lines fail without being buffered. */
  maxLineLength?: number;
  /** Name used in messages (`from {file}`); defaults to the path, or `<text>`, `<bytes>`, `<stream>`. */
  file?: string;
  /** Receives each diagnostic in lenient mode, in file order. */
  onDiagnostic?: (diagnostic: TraceParseError) => void;
  /**
   * Deliver only events of these kinds (`meta` always). A line of another kind in the canonical
   * writer's form (`{"kind":"memory",…`) is skipped by its first bytes, neither decoded nor checked:
   * for a further read of a file that a first read checked in full. `meta`, `span_start` and
   * `span_end` lines, which the ordering rules need, and lines in any other form are decoded and
   * checked as usual, then dropped when not asked for.
   */
  kinds?: readonly EventKind[];
}

const LF = 10;
/** Consecutive non-canonical lines after which the rest of a byte run is decoded as text. */
const TEXT_AFTER_MISSES = 8;
/** The most bytes decoded into one string on the text path. */
const TEXT_SLICE_BYTES = 1 << 16;

const CANONICAL_TRIED: DecodeTraceLineOptions = { canonicalTried: true };
const KIND_AT = '{"kind":"'.length;

/** Kinds the ordering rules look at: read and checked even when not delivered. */
const CHECKED_KINDS: readonly EventKind[] = ["meta", "span_start", "span_end"];

/** The canonical first bytes (`{"kind":"edge",`) of each kind skipped, or undefined for none. */
function skippedKindPrefixes(kinds: readonly EventKind[] | undefined): Uint8Array[] | undefined {
  if (kinds === undefined) return undefined;
  const encoder = new TextEncoder();
  const skipped = EVENT_KINDS.filter((kind) => !CHECKED_KINDS.includes(kind) && !kinds.includes(kind));
  return skipped.map((kind) => encoder.encode(`{"kind":"${kind}",`));
}

/**
 * How a run of lines committed together (`ColumnLineReader.run`) treats each kind: span starts and
 * ends join it after their ordering check, `meta` and the kinds not delivered end it (their lines
 * are read one by one), the rest join it.
 */
function runKindsFor(kinds: ReadonlySet<EventKind> | undefined): Uint8Array {
  const modes = new Uint8Array(EVENT_KINDS.length);
  EVENT_KINDS.forEach((kind, code) => {
    const delivered = kinds === undefined || kinds.has(kind);
    if (!delivered || kind === "meta") modes[code] = RUN_STOP;
    else if (CHECKED_KINDS.includes(kind)) modes[code] = RUN_CHECK;
    else modes[code] = RUN_READ;
  });
  return modes;
}

/** Whether the bytes at `start` begin with one of `prefixes` (which share their first KIND_AT bytes). */
function startsWithAny(bytes: Uint8Array, start: number, prefixes: readonly Uint8Array[]): boolean {
  for (const prefix of prefixes) {
    // Kinds differ from their first letter on; the shared `{"kind":"` is compared last.
    let at = KIND_AT;
    while (at < prefix.length && bytes[start + at] === prefix[at]) at++;
    if (at < prefix.length) continue;
    for (at = 0; at < KIND_AT; at++) if (bytes[start + at] !== prefix[at]) return false;
    return true;
  }
  return false;
}
// Kind codes of a ColumnBatch: positions in the layout table, whose order is EVENT_KINDS'.
const META = EVENT_KINDS.indexOf("meta");
const SPAN_START = EVENT_KINDS.indexOf("span_start");
const SPAN_END = EVENT_KINDS.indexOf("span_end");
const INVALID_UTF8: LinePiece = { type: "invalid_utf8" };

export class LineProcessor {
  readonly file: string;
  readonly lenient: boolean;
  readonly maxLineLength: number;
  readonly diagnostics: TraceParseError[] = [];
  readonly #checker: StructureChecker;
  readonly #onDiagnostic: ((diagnostic: TraceParseError) => void) | undefined;
  /** With `kinds`: the kinds delivered, and the first bytes of the canonical lines skipped. */
  readonly #kinds: ReadonlySet<EventKind> | undefined;
  readonly #skipped: Uint8Array[] | undefined;
  /** The batch every accepted event is read into, the column decoder reading into it, and its run modes. */
  readonly #batch: ColumnBatch;
  readonly #readColumns: ColumnLineReader;
  readonly #runKinds: Uint8Array;
  /**
   * A run's span line passes when its ordering rules do. A refused one ends the run; read on its
   * own next, it is refused again (the checks change nothing when they refuse).
   */
  readonly #checkRunLine = (code: number, id: string, line: number, index: number): boolean =>
    (code === SPAN_START
      ? this.#checker.checkSpanStart(id, line, index)
      : this.#checker.checkSpanEnd(id, line, index)) === undefined;
  readonly #queue: LinePiece[] = [];
  #head = 0;
  /** Where the next line starts in the bytes piece at the head of the queue. */
  #offset = 0;
  /** Non-canonical lines in a row in the current bytes piece. */
  #misses = 0;
  /** Events accepted into the batch so far. */
  #delivered = 0;
  #nextLine = 1;
  #nextIndex = 0;

  /**
   * Canonical lines are decoded straight into `batch`'s columns and checked from them; the text
   * tiers' events are appended to it. Read and clear the batch after each `drain`.
   * `checker`: the ordering rules to apply; a reader that decodes a part of a file away from its
   * start passes one that accepts everything and leaves the rules to whoever merges the parts.
   */
  constructor(file: string, options: ReadOptions, batch: ColumnBatch, checker = new StructureChecker(file)) {
    this.file = file;
    this.lenient = options.mode === "lenient";
    this.maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    this.#onDiagnostic = options.onDiagnostic;
    this.#checker = checker;
    this.#kinds = options.kinds === undefined ? undefined : new Set<EventKind>(["meta", ...options.kinds]);
    this.#skipped = skippedKindPrefixes(options.kinds);
    this.#batch = batch;
    this.#readColumns = decodedColumnReader(batch);
    this.#runKinds = runKindsFor(this.#kinds);
  }

  /** The ids of the spans started so far; a span's row in a SpanTable is its index here. */
  get spanIds(): IdTable {
    return this.#checker.spanIds;
  }

  /** Number of physical lines seen so far. */
  get lineCount(): number {
    return this.#nextLine - 1;
  }

  /** Number of non-blank lines seen so far. */
  get eventIndexCount(): number {
    return this.#nextIndex;
  }

  /**
   * Queues pieces for `drain`. A bytes piece may live in a reused buffer: drain it completely
   * before the next chunk is read.
   */
  enqueue(pieces: readonly LinePiece[]): void {
    for (const piece of pieces) this.#queue.push(piece);
  }

  /**
   * Processes queued pieces until `maxEvents` more events were accepted into the batch (a reader
   * then hands them out before more are decoded, so few are alive at once) or the queue is empty.
   * Returns true when work remains.
   */
  drain(maxEvents = Number.POSITIVE_INFINITY): boolean {
    const limit = this.#delivered + maxEvents;
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const piece = queue[this.#head] as LinePiece;
      if (piece.type === "bytes") {
        if (this.#nextLine === 1 && this.#offset === 0 && piece.bytes.length > 0) {
          this.#offset = this.#nonCanonicalLine(piece.bytes, 0, piece.unterminated, undefined);
          if (this.#offset >= piece.bytes.length) {
            this.#offset = 0;
            this.#misses = 0;
            this.#head++;
            continue;
          }
        }
        if (!this.#processBytes(piece.bytes, piece.unterminated, limit)) return true;
      } else if (piece.type === "text") {
        const stop = this.#processText(piece.text, this.#offset, piece.unterminated, limit);
        if (stop < piece.text.length) {
          this.#offset = stop;
          return true;
        }
        this.#offset = 0;
      } else {
        this.#processPiece(piece);
      }
      this.#head++;
    }
    queue.length = 0;
    this.#head = 0;
    return false;
  }

  processPieces(pieces: readonly LinePiece[]): void {
    this.enqueue(pieces);
    this.drain();
  }

  #processPiece(piece: LinePiece): void {
    if (piece.type === "bytes") {
      this.#processBytes(piece.bytes, piece.unterminated, Number.POSITIVE_INFINITY);
    } else if (piece.type === "text") {
      this.#processText(piece.text, 0, piece.unterminated, Number.POSITIVE_INFINITY);
    } else if (piece.type === "invalid_utf8") {
      const line = this.#nextLine++;
      const index = this.#nextIndex++;
      this.#fail(
        new TraceParseError({
          message: `read trace JSONL line ${line} from ${this.file}: invalid UTF-8 (stream did not contain valid UTF-8)`,
          code: "invalid_utf8",
          stage: "line",
          line,
          index,
          file: this.file,
        }),
      );
    } else {
      this.#tooLong(piece.length);
    }
  }

  /**
   * A line at `start` of a kind nobody asked for is counted, not decoded: the offset after it, or
   * -1 when it is not such a line (or too long to skip, so the decoder reports it).
   */
  #skipLine(bytes: Uint8Array, start: number, skipped: readonly Uint8Array[]): number {
    if (!startsWithAny(bytes, start, skipped)) return -1;
    let end = bytes.indexOf(LF, start);
    if (end === -1) end = bytes.length;
    if (end - start > this.maxLineLength) return -1;
    this.#nextLine++;
    this.#nextIndex++;
    this.#misses = 0;
    return end + 1;
  }

  /**
   * Whole lines of UTF-8 (each ending in LF unless `unterminated`, which marks the source's end),
   * from `#offset` on. Returns false when it stopped at `limit` delivered events, true when done.
   */
  #processBytes(bytes: Uint8Array, unterminated: boolean, limit: number): boolean {
    const length = bytes.length;
    const maxLineLength = this.maxLineLength;
    const read = this.#readColumns;
    const run = read.run;
    const runKinds = this.#runKinds;
    const checkRunLine = this.#checkRunLine;
    const batch = this.#batch;
    const skipped = this.#skipped;
    let start = this.#offset;
    // A new piece: its buffer may be one the reader has decoded before, with other bytes now.
    if (start === 0) read.forget();
    while (start < length) {
      if (this.#delivered >= limit) {
        this.#offset = start;
        return false;
      }
      if (run !== undefined) {
        // The decoder's lines committed as a run (span lines once their checks pass); the line it
        // stops at is read on its own below.
        const before = batch.size;
        const end = run(
          bytes,
          start,
          this.#nextLine,
          this.#nextIndex,
          limit - this.#delivered,
          maxLineLength,
          runKinds,
          checkRunLine,
        );
        if (end >= 0) {
          const lines = batch.size - before;
          this.#nextLine += lines;
          this.#nextIndex += lines;
          this.#delivered += lines;
          this.#misses = 0;
          start = end;
          continue;
        }
      }
      const afterSkipped = skipped === undefined ? -1 : this.#skipLine(bytes, start, skipped);
      if (afterSkipped >= 0) {
        start = afterSkipped;
        continue;
      }
      const end = read(bytes, start, this.#nextLine, this.#nextIndex);
      if (end >= 0) {
        if (end - start <= maxLineLength) {
          this.#misses = 0;
          this.#acceptColumns(batch, this.#nextLine++, this.#nextIndex++);
          start = end + 1;
          continue;
        }
        batch.dropLast();
      }
      start = this.#nonCanonicalLine(bytes, start, unterminated, CANONICAL_TRIED);
    }
    this.#offset = 0;
    this.#misses = 0;
    return true;
  }

  /** The ordering rules for the batch's last event, read from its columns; refused events are taken back. */
  #acceptColumns(batch: ColumnBatch, line: number, index: number): void {
    const at = batch.size - 1;
    const error = this.#checkSpanRow(batch, at, line, index);
    if (error !== undefined) {
      batch.dropLast();
      this.#fail(error);
      return;
    }
    if (!this.#wanted(batch.kinds[at] as number)) {
      batch.dropLast();
      return;
    }
    this.#delivered++;
  }

  /** The ordering rules for a span event at `at` of a batch, read from its columns (other kinds pass). */
  #checkSpanRow(batch: ColumnBatch, at: number, line: number, index: number): TraceParseError | undefined {
    const code = batch.kinds[at] as number;
    if (code !== SPAN_START && code !== SPAN_END) return undefined;
    const ids = (batch.columns[code] as KindColumns).fields[0] as FieldColumn;
    const id = batch.strings[ids.values[batch.rows[at] as number] as number] as string;
    return code === SPAN_START
      ? this.#checker.checkSpanStart(id, line, index)
      : this.#checker.checkSpanEnd(id, line, index);
  }

  /** Whether events of kind `code` are delivered (see `kinds`). */
  #wanted(code: number): boolean {
    return this.#wantedKind(EVENT_KINDS[code] as EventKind);
  }

  /** Whether events of `kind` are delivered (see `kinds`). */
  #wantedKind(kind: EventKind): boolean {
    return this.#kinds === undefined || this.#kinds.has(kind);
  }

  /**
   * Takes a batch decoded elsewhere (another thread), its lines and records already numbered as
   * this processor's next ones (see `skip`): applies the ordering rules to each event and hands the
   * accepted ones to `take` in runs of positions `from` up to `to`, in order. A refused event ends
   * a run; in strict mode its error is thrown after the run before it was taken.
   */
  acceptBatch(batch: ColumnBatch, take: (from: number, to: number) => void): void {
    let from = 0;
    for (let at = 0; at < batch.size; at++) {
      const line = batch.lines[at] as number;
      const index = batch.indexes[at] as number;
      const code = batch.kinds[at] as number;
      const error =
        code === META
          ? this.#checker.checkMeta(batch.event(at) as MetaEvent, line, index)
          : this.#checkSpanRow(batch, at, line, index);
      if (error === undefined && this.#wanted(code)) {
        this.#delivered++;
        continue;
      }
      take(from, at);
      from = at + 1;
      if (error !== undefined) this.#fail(error);
    }
    take(from, batch.size);
  }

  /**
   * The line at `start` that the canonical tier refused (`options`: CANONICAL_TRIED), or line 1,
   * which drain sends here before the loop: the meta line of a trace, which the text tiers decode.
   * A method of its own, apart from the hot loop: a path that a canonical file takes once (its
   * first line) would otherwise make V8 discard the loop's optimized code in every file after the
   * first. Returns where the next line starts (the end of `bytes` when the rest of it was decoded
   * as text).
   */
  #nonCanonicalLine(
    bytes: Uint8Array,
    start: number,
    unterminated: boolean,
    options: DecodeTraceLineOptions | undefined,
  ): number {
    const length = bytes.length;
    let end = bytes.indexOf(LF, start);
    if (end === -1) end = length;
    if (end - start > this.maxLineLength) {
      this.#tooLong(end - start);
      return end + 1;
    }
    // Not canonical: this line goes through the text tiers. After several such lines in a row
    // the rest of the run is decoded as text (a file from another writer).
    if (++this.#misses > TEXT_AFTER_MISSES) {
      this.#processAsText(bytes, start, length, unterminated);
      return length;
    }
    this.#refusedLine(bytes.subarray(start, end), unterminated && end === length, options);
    return end + 1;
  }

  /** One line (its bytes, no LF) decoded once as text, for the text tiers. */
  #refusedLine(bytes: Uint8Array, unterminated: boolean, options: DecodeTraceLineOptions | undefined): void {
    const text = decodeUtf8Line(bytes);
    if (text === undefined) this.#processPiece(INVALID_UTF8);
    else this.#line(text, unterminated, options);
  }

  /**
   * Decodes the whole lines bytes[start..stop) as text (`unterminated`: the last has no LF), in
   * slices of at most TEXT_SLICE_BYTES, so no decoded string is big enough for V8's large-object
   * space, which only a full collection frees.
   */
  #processAsText(bytes: Uint8Array, start: number, stop: number, unterminated: boolean): void {
    const length = stop;
    const pieces: LinePiece[] = [];
    let from = start;
    while (from < length) {
      let to = length;
      if (length - from > TEXT_SLICE_BYTES) {
        const lineFeed = bytes.lastIndexOf(LF, from + TEXT_SLICE_BYTES - 1);
        if (lineFeed >= from) to = lineFeed + 1;
        else {
          const next = bytes.indexOf(LF, from + TEXT_SLICE_BYTES);
          to = next === -1 ? length : next + 1;
        }
      }
      decodeUtf8Lines(bytes.subarray(from, to), unterminated && to === length, pieces);
      for (const piece of pieces) this.#processPiece(piece);
      pieces.length = 0;
      from = to;
    }
  }

  /**
   * Whole lines of text from `from` on (`unterminated`: the last has no LF). Returns where it
   * stopped: the text's length when done, less when `limit` events were delivered.
   */
  #processText(text: string, from: number, unterminated: boolean, limit: number): number {
    const length = text.length;
    const maxLineLength = this.maxLineLength;
    let start = from;
    while (start < length) {
      if (this.#delivered >= limit) return start;
      let end = text.indexOf("\n", start);
      if (end === -1) end = length;
      if (end - start > maxLineLength) this.#tooLong(end - start);
      else this.#line(text.slice(start, end), unterminated && end === length);
      start = end + 1;
    }
    return length;
  }

  /** Runs the final-stage checks; throws (strict) or records (lenient) their error. */
  finish(): void {
    const error = this.#checker.finish();
    if (error === undefined) return;
    if (error.code === "missing_meta") throw error; // no document without run metadata, in any mode
    this.#fail(error);
  }

  #line(raw: string, unterminated: boolean, options?: DecodeTraceLineOptions): void {
    const line = this.#nextLine++;
    const trimmed = trimTraceLine(raw);
    if (trimmed.length === 0) return;
    const index = this.#nextIndex++;
    const result = decodeTraceLine(trimmed, options);
    if (!result.ok) {
      const { code, message, field } = result.error;
      // In lenient mode an incomplete final line is a killed writer's, not a defect (spec §8.5).
      const truncated = unterminated && this.lenient;
      this.#fail(
        new TraceParseError({
          message: truncated
            ? `parse trace JSONL line ${line} from ${this.file}: truncated final line without a line feed (${message}); the line was dropped`
            : `parse trace JSONL line ${line} from ${this.file}: ${message}`,
          code: truncated ? "truncated" : code,
          stage: "line",
          line,
          index,
          file: this.file,
          field,
        }),
      );
      return;
    }
    this.#acceptDecoded(result.event, line, index);
  }

  /** Applies the ordering rules to an event of any kind from the text tiers and appends it to the batch. */
  #acceptDecoded(event: TraceEvent, line: number, index: number): void {
    const structureError =
      event.kind === "meta"
        ? this.#checker.checkMeta(event, line, index)
        : this.#checker.check(event, line, index);
    if (structureError !== undefined) {
      this.#fail(structureError);
      return;
    }
    if (!this.#wantedKind(event.kind)) return;
    this.#delivered++;
    this.#batch.appendEvent(event, line, index);
  }

  /** Moves past `lines` physical lines holding `records` records that were decoded elsewhere. */
  skip(lines: number, records: number): void {
    this.#nextLine += lines;
    this.#nextIndex += records;
  }

  #tooLong(length: number): void {
    const line = this.#nextLine++;
    const index = this.#nextIndex++;
    this.#fail(
      new TraceParseError({
        message: `read trace JSONL line ${line} from ${this.file}: line is longer than the limit of ${this.maxLineLength} (at least ${length})`,
        code: "line_too_long",
        stage: "line",
        line,
        index,
        file: this.file,
      }),
    );
  }

  #fail(error: TraceParseError): void {
    if (!this.lenient) throw error;
    this.diagnostics.push(error);
    this.#onDiagnostic?.(error);
  }
}
