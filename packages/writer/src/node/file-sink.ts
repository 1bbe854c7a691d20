import { closeSync, constants, fstatSync, ftruncateSync, openSync, realpathSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type LineTarget, lineTarget } from "../serialize/line-target.js";
import { TraceSessionError } from "../trace-session-error.js";
import type { TraceSink } from "../trace-sink.js";
import { TraceWriteError } from "../trace-write-error.js";
import { createDirectories } from "./create-directories.js";
import { registerForExitFlush, unregisterFromExitFlush } from "./exit-flush.js";
import { lockTraceIdentity } from "./identity-lock.js";
import { lockTracePath, type PathLock } from "./path-lock.js";

/** `buffered` (default): lines collect in memory and go out with `fs.writeSync` when the buffer is
 *  full, on flush, finish and process exit. `line`: every line is written through at once, so a
 *  killed process loses nothing it recorded. */
export type Durability = "buffered" | "line";

export interface FileSinkOptions {
  durability?: Durability | undefined;
  /** Buffer size in bytes (default 64 KiB). */
  bufferSize?: number | undefined;
}

const DEFAULT_BUFFER_SIZE = 64 * 1024;

// Buffer#utf8Write skips the argument normalisation of Buffer#write (about a tenth of the cost of
// an op event); it has been on Buffer.prototype in every Node release. Fall back to write otherwise.
const utf8Write = (Buffer.prototype as unknown as { utf8Write?: (text: string, offset: number) => number })
  .utf8Write;

/** The path with every symbolic link resolved, the file itself perhaps not existing yet. */
function realTracePath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return join(realpathSync(dirname(path)), basename(path));
  }
}

/**
 * A synchronous file sink. Creates missing parent directories, takes the path for itself (see
 * `path-lock.ts`: a second live sink on the same file fails here, before anything is truncated)
 * and truncates the file. After the first failed write it drops everything (a half-written buffer
 * must not be followed by more lines) and rethrows nothing further.
 *
 * It is also the session's `LineBufferSink` (found by `asLineBufferSink`), which is not named in
 * `implements`: that interface and these members are internal, left out of the published types.
 */
export class FileSink implements TraceSink {
  readonly location: string;
  readonly #bytes: Buffer | undefined;
  readonly #target: LineTarget | undefined;
  readonly #lock: PathLock;
  readonly #identityLock: PathLock;
  #fd: number;
  #offset = 0;
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
    // Lines are encoded straight into one reused byte buffer: no large string rope to keep alive
    // between writes, and no allocation per flush.
    this.#bytes = durability === "line" || size === 0 ? undefined : Buffer.allocUnsafe(size);
    this.#target = this.#bytes === undefined ? undefined : lineTarget(this.#bytes);
    let realPath: string;
    try {
      createDirectories(dirname(path));
      realPath = realTracePath(path);
    } catch (error) {
      throw TraceWriteError.fromCause("creating the parent directory of", path, error);
    }
    try {
      this.#lock = lockTracePath(realPath);
    } catch (error) {
      if (TraceSessionError.isInstance(error)) throw error;
      throw TraceWriteError.fromCause("locking", path, error);
    }
    // Opened without truncating: the file's identity is known only once it is open, and a file
    // another session writes under another name (a hard link) must be left as it is.
    try {
      this.#fd = openSync(path, constants.O_WRONLY | constants.O_CREAT, 0o666);
    } catch (error) {
      this.#lock.release();
      throw TraceWriteError.fromCause("opening", path, error);
    }
    try {
      this.#identityLock = lockTraceIdentity(this.#fd, realPath);
    } catch (error) {
      closeSync(this.#fd);
      this.#lock.release();
      if (TraceSessionError.isInstance(error)) throw error;
      throw TraceWriteError.fromCause("locking", path, error);
    }
    try {
      if (fstatSync(this.#fd).isFile()) ftruncateSync(this.#fd, 0);
    } catch (error) {
      closeSync(this.#fd);
      this.#identityLock.release();
      this.#lock.release();
      throw TraceWriteError.fromCause("truncating", path, error);
    }
    registerForExitFlush(this);
  }

  append(line: string): void {
    if (this.#broken || this.#closed) return;
    const bytes = this.#bytes;
    if (bytes === undefined) {
      this.#writeText(line);
      return;
    }
    // A UTF-16 code unit takes at most 3 UTF-8 bytes.
    if (this.#offset + line.length * 3 > bytes.length) {
      this.flush();
      if (line.length * 3 > bytes.length) {
        this.#writeText(line);
        return;
      }
    }
    this.#offset +=
      utf8Write === undefined ? bytes.write(line, this.#offset) : utf8Write.call(bytes, line, this.#offset);
  }

  /** @internal The byte buffer for the session's direct line encoding (buffered mode only). */
  lineBuffer(): LineTarget | undefined {
    return this.#broken || this.#closed ? undefined : this.#target;
  }

  /** @internal Where the next line starts in `lineBuffer()`. */
  get lineOffset(): number {
    return this.#offset;
  }

  /** @internal Takes the line written at `lineOffset` up to `end` into the buffer. */
  commitLine(end: number): void {
    this.#offset = end;
  }

  flush(): void {
    if (this.#broken || this.#closed || this.#offset === 0 || this.#bytes === undefined) return;
    const length = this.#offset;
    this.#offset = 0;
    this.#writeBytes(this.#bytes, length);
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
      this.#identityLock.release();
      this.#lock.release();
    }
  }

  /** @internal Called by the shared exit hook. */
  flushAtExit(): void {
    try {
      this.flush();
    } finally {
      this.#identityLock.release();
      this.#lock.release();
    }
  }

  #writeText(text: string): void {
    const bytes = Buffer.from(text, "utf8");
    this.#writeBytes(bytes, bytes.length);
  }

  #writeBytes(bytes: Buffer, length: number): void {
    let offset = 0;
    try {
      while (offset < length) offset += writeSync(this.#fd, bytes, offset, length - offset);
    } catch (error) {
      this.#broken = true;
      this.#offset = 0;
      throw TraceWriteError.fromCause("writing", this.location, error);
    }
  }
}
