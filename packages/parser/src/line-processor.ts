// The per-line core shared by every entry point: counts physical lines and event indexes, trims,
// decodes through @cg/schema and applies the ordering rules. Events go to a callback so the hot
// loop allocates nothing per line beyond what decoding needs.
//
// Bytes are read canonical-first: each line goes straight from UTF-8 bytes to an event through
// `decodeCanonicalLine` (no text decoding, no JSON.parse). At the first line of a run that is not
// canonical (or blank, or not ASCII), the rest of the run is decoded as text and goes through
// `decodeTraceLine`, which gives the same event for canonical lines and the exact error otherwise.
import { decodeCanonicalLine, decodeTraceLine, type TraceEvent, trimTraceLine } from "@cg/schema";
import { decodeUtf8Lines, type LinePiece } from "./line-splitter.js";
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
}

const LF = 10;
const CR = 13;
/** Consecutive non-canonical lines after which the rest of a byte run is decoded as text. */
const TEXT_AFTER_MISSES = 8;

export type EventSink = (event: TraceEvent, line: number, index: number) => void;

export class LineProcessor {
  readonly file: string;
  readonly lenient: boolean;
  readonly maxLineLength: number;
  readonly diagnostics: TraceParseError[] = [];
  readonly #checker: StructureChecker;
  readonly #onDiagnostic: ((diagnostic: TraceParseError) => void) | undefined;
  readonly #sink: EventSink;
  #nextLine = 1;
  #nextIndex = 0;

  constructor(file: string, options: ReadOptions, sink: EventSink) {
    this.file = file;
    this.lenient = options.mode === "lenient";
    this.maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    this.#onDiagnostic = options.onDiagnostic;
    this.#checker = new StructureChecker(file);
    this.#sink = sink;
  }

  /** Number of physical lines seen so far. */
  get lineCount(): number {
    return this.#nextLine - 1;
  }

  /** Number of non-blank lines seen so far. */
  get eventIndexCount(): number {
    return this.#nextIndex;
  }

  processPieces(pieces: readonly LinePiece[]): void {
    for (const piece of pieces) {
      if (piece.type === "bytes") this.processBytes(piece.bytes, piece.unterminated);
      else if (piece.type === "text") this.processText(piece.text, piece.unterminated);
      else if (piece.type === "invalid_utf8") {
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
  }

  /** Whole lines of UTF-8 (each ending in LF unless `unterminated`, which marks the source's end). */
  processBytes(bytes: Uint8Array, unterminated: boolean): void {
    const length = bytes.length;
    const maxLineLength = this.maxLineLength;
    let misses = 0;
    let start = 0;
    while (start < length) {
      let end = bytes.indexOf(LF, start);
      if (end === -1) end = length;
      if (end - start > maxLineLength) {
        this.#tooLong(end - start);
        start = end + 1;
        continue;
      }
      // A CR before the LF is trailing white space, which decodeTraceLine would trim as well.
      const stop = end > start && bytes[end - 1] === CR ? end - 1 : end;
      const event = decodeCanonicalLine(bytes, start, stop);
      if (event !== undefined) {
        misses = 0;
        this.#accept(event, this.#nextLine++, this.#nextIndex++);
      } else {
        // Not canonical: this line goes through the text tiers. After several such lines in a
        // row the rest of the run is decoded as text at once (a file from another writer).
        const pieces: LinePiece[] = [];
        if (++misses > TEXT_AFTER_MISSES) {
          decodeUtf8Lines(bytes.subarray(start), unterminated, pieces);
          this.processPieces(pieces);
          return;
        }
        decodeUtf8Lines(bytes.subarray(start, end + 1), unterminated && end === length, pieces);
        this.processPieces(pieces);
      }
      start = end + 1;
    }
  }

  processText(text: string, unterminated: boolean): void {
    const length = text.length;
    const maxLineLength = this.maxLineLength;
    let start = 0;
    while (start < length) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = length;
      if (end - start > maxLineLength) this.#tooLong(end - start);
      else this.#line(text.slice(start, end), unterminated && end === length);
      start = end + 1;
    }
  }

  /** Runs the final-stage checks; throws (strict) or records (lenient) their error. */
  finish(): void {
    const error = this.#checker.finish();
    if (error === undefined) return;
    if (error.code === "missing_meta") throw error; // no document without run metadata, in any mode
    this.#fail(error);
  }

  #line(raw: string, unterminated: boolean): void {
    const line = this.#nextLine++;
    const trimmed = trimTraceLine(raw);
    if (trimmed.length === 0) return;
    const index = this.#nextIndex++;
    const result = decodeTraceLine(trimmed);
    if (!result.ok) {
      const { code, message, field } = result.error;
      if (unterminated && this.lenient) {
        this.#fail(
          new TraceParseError({
            message: `parse trace JSONL line ${line} from ${this.file}: truncated final line without a line feed (${message}); the line was dropped`,
            code: "truncated",
            stage: "line",
            line,
            index,
            file: this.file,
            field,
          }),
        );
        return;
      }
      this.#fail(
        new TraceParseError({
          message: `parse trace JSONL line ${line} from ${this.file}: ${message}`,
          code,
          stage: "line",
          line,
          index,
          file: this.file,
          field,
        }),
      );
      return;
    }
    this.#accept(result.event, line, index);
  }

  /** Applies the ordering rules to a decoded event and hands it on. */
  #accept(event: TraceEvent, line: number, index: number): void {
    const structureError = this.#checker.check(event, line, index);
    if (structureError !== undefined) {
      this.#fail(structureError);
      return;
    }
    this.#sink(event, line, index);
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
