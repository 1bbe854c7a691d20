// Walk-stage and final-stage rules of spec §8.3. State is one set per span id kind (started,
// ended), which the duplicate rules need; nothing else of the file is kept.
import { SCHEMA, type TraceEvent } from "@cg/schema";
import { TraceParseError } from "./trace-parse-error.js";

export class StructureChecker {
  readonly #file: string;
  readonly #started = new Set<string>();
  readonly #ended = new Set<string>();
  #metaSeen = false;
  #schema: string | undefined;
  #schemaLine: number | undefined;

  constructor(file: string) {
    this.#file = file;
  }

  /** Returns an error for an event that breaks an ordering rule; the caller throws or records it. */
  check(event: TraceEvent, line: number, index: number): TraceParseError | undefined {
    switch (event.kind) {
      case "meta":
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
      case "span_start":
        if (this.#started.has(event.id)) {
          return this.#error(
            "duplicate_span_start",
            `duplicate span_start id \`${event.id}\` at index ${index}`,
            line,
            index,
          );
        }
        this.#started.add(event.id);
        return undefined;
      case "span_end":
        if (!this.#started.has(event.id)) {
          return this.#error(
            "unknown_span_end",
            `span_end for unknown span \`${event.id}\` at index ${index}`,
            line,
            index,
          );
        }
        if (this.#ended.has(event.id)) {
          return this.#error(
            "duplicate_span_end",
            `duplicate span_end for \`${event.id}\` at index ${index}`,
            line,
            index,
          );
        }
        this.#ended.add(event.id);
        return undefined;
      default:
        return undefined;
    }
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
