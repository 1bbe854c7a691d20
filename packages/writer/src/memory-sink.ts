import type { TraceSink } from "./trace-sink.js";

/** Keeps the trace in memory (tests, browsers). */
export class MemorySink implements TraceSink {
  readonly location: string;
  readonly #lines: string[] = [];
  #closed = false;

  constructor(location = "memory") {
    this.location = location;
  }

  append(line: string): void {
    this.#lines.push(line);
  }

  flush(): void {}

  close(): void {
    this.#closed = true;
  }

  /** Whether `finish` closed the sink. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The whole trace text so far, every line LF-terminated. */
  text(): string {
    return this.#lines.join("");
  }

  /** The lines so far, without their LF. */
  lines(): string[] {
    return this.#lines.map((line) => line.slice(0, -1));
  }
}
