// Walk-stage and final-stage rules of spec §8.3. State is the started span ids, interned into a
// compact table (each span's row is its id's index), and one bit per span for "ended", which the
// duplicate rules need; nothing else of the file is kept.
import { type MetaEvent, SCHEMA, type TraceEvent } from "@cg/schema/core";
import { BitSet, IdTable } from "./id-table.js";
import { TraceParseError } from "./trace-parse-error.js";

export class StructureChecker {
  readonly #file: string;
  /** Ids of the started spans, in order of their `span_start`. */
  readonly spanIds = new IdTable();
  readonly #ended = new BitSet();
  #metaSeen = false;
  #schema: string | undefined;
  #schemaLine: number | undefined;

  constructor(file: string) {
    this.#file = file;
  }

  /**
   * The rules for a `meta` event. A method of its own, which readers call for `meta` events only:
   * a path that each file takes once (its first line) must not be inlined into the per-event
   * check, where it would never have type feedback and V8 would discard the reader's optimized
   * code at the start of every file.
   */
  checkMeta(event: MetaEvent, line: number, index: number): TraceParseError | undefined {
    if (index !== 0 || this.#metaSeen) {
      return this.#error(
        "meta_not_first",
        `meta event must be the first non-empty trace record, found at index ${index}`,
        line,
        index,
      );
    }
    this.#metaSeen = true;
    this.#schema = event.schema;
    this.#schemaLine = line;
    return undefined;
  }

  /** Returns an error for an event that breaks an ordering rule; the caller throws or records it. */
  check(event: TraceEvent, line: number, index: number): TraceParseError | undefined {
    switch (event.kind) {
      case "meta":
        return this.checkMeta(event, line, index);
      case "span_start":
        return this.checkSpanStart(event.id, line, index);
      case "span_end":
        return this.checkSpanEnd(event.id, line, index);
      default:
        return undefined;
    }
  }

  /** The rules for a `span_start` of span `id` (a column reader has the id, not an event). */
  checkSpanStart(id: string, line: number, index: number): TraceParseError | undefined {
    const known = this.spanIds.size;
    this.spanIds.intern(id);
    if (this.spanIds.size === known) {
      return this.#error(
        "duplicate_span_start",
        `duplicate span_start id \`${id}\` at index ${index}`,
        line,
        index,
      );
    }
    return undefined;
  }

  /** The rules for a `span_end` of span `id`. */
  checkSpanEnd(id: string, line: number, index: number): TraceParseError | undefined {
    const row = this.spanIds.get(id);
    if (row < 0) {
      return this.#error(
        "unknown_span_end",
        `span_end for unknown span \`${id}\` at index ${index}`,
        line,
        index,
      );
    }
    if (this.#ended.has(row)) {
      return this.#error(
        "duplicate_span_end",
        `duplicate span_end for \`${id}\` at index ${index}`,
        line,
        index,
      );
    }
    this.#ended.add(row);
    return undefined;
  }

  /** True once a `meta` was accepted, so later events can be checked against it. */
  get metaSeen(): boolean {
    return this.#metaSeen;
  }

  /** Final stage: missing meta first, then the schema string (spec §8.1). */
  finish(): TraceParseError | undefined {
    if (!this.#metaSeen) {
      return new TraceParseError({
        message: `trace stream is missing a meta event with run metadata (${this.#file})`,
        code: "missing_meta",
        stage: "stream",
        file: this.#file,
      });
    }
    if (this.#schema !== SCHEMA) {
      return new TraceParseError({
        message: `unsupported trace schema ${JSON.stringify(this.#schema)}; expected ${JSON.stringify(SCHEMA)} (line ${this.#schemaLine} of ${this.#file})`,
        code: "unsupported_schema",
        stage: "stream",
        line: this.#schemaLine,
        file: this.#file,
        field: "meta.schema",
      });
    }
    return undefined;
  }

  #error(code: string, message: string, line: number, index: number): TraceParseError {
    return new TraceParseError({
      message: `${message} (line ${line} of ${this.#file})`,
      code,
      stage: "stream",
      line,
      index,
      file: this.#file,
    });
  }
}
