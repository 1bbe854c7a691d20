import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { TraceSink } from "../trace-sink.js";
import { TraceWriteError } from "../trace-write-error.js";
import { registerForExitFlush, unregisterFromExitFlush } from "./exit-flush.js";

/** `buffered` (default): lines collect in memory and go out with `fs.writeSync` when the buffer is
 *  full, on flush, finish and process exit. `line`: every line is written through at once, so a
 *  killed process loses nothing it recorded. */
export type Durability = "buffered" | "line";

export interface FileSinkOptions {
  durability?: Durability | undefined;
  /** Buffer size in UTF-16 code units before a write (default 64 KiB). */
  bufferSize?: number | undefined;
}

const DEFAULT_BUFFER_SIZE = 64 * 1024;

/**
 * A synchronous file sink. Creates missing parent directories and truncates the file. After the
 * first failed write it drops everything (a half-written buffer must not be followed by more lines)
 * and rethrows nothing further.
 */
export class FileSink implements TraceSink {
  readonly location: string;
  readonly #limit: number;
  #fd: number;
  #buffer = "";
  #broken = false;
  #closed = false;

  constructor(path: string, options: FileSinkOptions = {}) {
    this.location = path;
    const durability = options.durability ?? "buffered";
    if (durability !== "buffered" && durability !== "line") {
      throw new TypeError(`durability must be "buffered" or "line", got ${String(durability)}`);
    }
    const size = options.bufferSize ?? DEFAULT_BUFFER_SIZE;
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new TypeError(`bufferSize must be a non-negative integer, got ${String(size)}`);
    }
    this.#limit = durability === "line" ? 0 : size;
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw TraceWriteError.fromCause("creating the parent directory of", path, error);
    }
    try {
      this.#fd = openSync(path, "w");
    } catch (error) {
      throw TraceWriteError.fromCause("opening", path, error);
    }
    registerForExitFlush(this);
  }

  append(line: string): void {
    if (this.#broken || this.#closed) return;
    if (this.#limit === 0) {
      this.#write(line);
      return;
    }
    this.#buffer += line;
    if (this.#buffer.length >= this.#limit) this.flush();
  }

  flush(): void {
    if (this.#broken || this.#closed || this.#buffer.length === 0) return;
    const text = this.#buffer;
    this.#buffer = "";
    this.#write(text);
  }

  close(): void {
    if (this.#closed) return;
    try {
      this.flush();
    } finally {
      this.#closed = true;
      unregisterFromExitFlush(this);
      try {
        closeSync(this.#fd);
      } catch {
        // The data is written (or the failure already reported); a close error adds nothing.
      }
    }
  }

  /** @internal Called by the shared exit hook. */
  flushAtExit(): void {
    this.flush();
  }

  #write(text: string): void {
    const bytes = Buffer.from(text, "utf8");
    let offset = 0;
    try {
      while (offset < bytes.length) offset += writeSync(this.#fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      this.#broken = true;
      this.#buffer = "";
      throw TraceWriteError.fromCause("writing", this.location, error);
    }
  }
}
