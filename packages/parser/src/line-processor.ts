// The per-line core shared by every entry point: counts physical lines and event indexes, trims,
// decodes through @cg/schema and applies the ordering rules. Events go to a callback so the hot
// loop allocates nothing per line beyond what decoding needs.
import { decodeTraceLine, type TraceEvent, trimTraceLine } from "@cg/schema";
import type { LinePiece } from "./line-splitter.js";
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
      if (piece.type === "text") this.processText(piece.text, piece.unterminated);
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
    const structureError = this.#checker.check(result.event, line, index);
    if (structureError !== undefined) {
      this.#fail(structureError);
      return;
    }
    this.#sink(result.event, line, index);
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
