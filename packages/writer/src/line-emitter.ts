import type { LineTarget } from "./serialize/line-target.js";
import { asLineBufferSink, type LineBufferSink, type TraceSink } from "./trace-sink.js";
import { TraceWriteError } from "./trace-write-error.js";

/**
 * Room the byte path wants for one line: when less is left in the buffer, it is flushed first
 * (rather than sending the line down the slower string path). Longer lines take the string path.
 */
const LINE_ROOM = 2048;
const NO_TARGET: LineTarget = { bytes: new Uint8Array(0), view: new DataView(new ArrayBuffer(0)) };

/**
 * The one seam between a session and its sink. It decides whether a line goes in as bytes or as
 * text, commits byte lines, flushes to make room, and keeps the sticky error: the first write
 * failure is recorded, reported once to `onError`, and from then on nothing more is written.
 *
 * A line's writer asks `start()` for a position; -1 means "write text" (no byte buffer, or after a
 * failure). Otherwise it encodes into `target` from there and hands the end to `commit`, which
 * takes it, or returns false when the encoder declined the line (-1): then the caller writes the
 * same line as text with `text`, whose serializers validate and name a bad field.
 */
export class LineEmitter {
  readonly sink: TraceSink;
  /** The buffer of the line begun by the last `start()`. */
  target: LineTarget = NO_TARGET;
  readonly #lines: LineBufferSink | undefined;
  readonly #onError: ((error: TraceWriteError) => void) | undefined;
  #failure: TraceWriteError | undefined;

  constructor(sink: TraceSink, onError: ((error: TraceWriteError) => void) | undefined) {
    this.sink = sink;
    this.#lines = asLineBufferSink(sink);
    this.#onError = onError;
  }

  /** The first write failure, if any. */
  get failure(): TraceWriteError | undefined {
    return this.#failure;
  }

  /** Whether byte lines can be written now (a byte-buffer sink, no failure). */
  get takesBytes(): boolean {
    return this.#lines !== undefined && this.#failure === undefined;
  }

  /** Where the next byte line starts in `target`, or -1 when it must be text. */
  start(): number {
    const lines = this.#lines;
    if (lines === undefined || this.#failure !== undefined) return -1;
    const target = lines.lineBuffer();
    if (target === undefined) return -1;
    this.target = target;
    const offset = lines.lineOffset;
    if (offset === 0 || offset <= target.bytes.length - LINE_ROOM) return offset;
    this.flushQuietly();
    return this.#failure === undefined ? lines.lineOffset : -1;
  }

  /** Takes the byte line begun at `start()` up to `end`; false when the encoder declined it. */
  commit(end: number): boolean {
    if (end < 0) return false;
    (this.#lines as LineBufferSink).commitLine(end);
    return true;
  }

  /** Writes one LF-terminated line as text; a failure becomes the sticky error, never an exception. */
  text(line: string): void {
    if (this.#failure !== undefined) return;
    try {
      this.sink.append(line);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Flushes the sink; a failure becomes the sticky error. */
  flushQuietly(): void {
    if (this.#failure !== undefined) return;
    try {
      this.sink.flush();
    } catch (error) {
      this.fail(error);
    }
  }

  /** Closes the sink; a failure becomes the sticky error unless one is kept already. */
  close(): void {
    try {
      this.sink.close();
    } catch (error) {
      if (this.#failure === undefined) this.fail(error);
    }
  }

  /** Records `cause` as the sticky error (the first one wins) and reports it once. */
  fail(cause: unknown): TraceWriteError {
    if (this.#failure !== undefined) return this.#failure;
    const failure = TraceWriteError.isInstance(cause)
      ? cause
      : TraceWriteError.fromCause("writing trace", this.sink.location, cause);
    this.#failure = failure;
    if (this.#onError !== undefined) {
      try {
        this.#onError(failure);
      } catch {
        // An observer must not turn a recorded failure into a crash of the host.
      }
    }
    return failure;
  }
}
