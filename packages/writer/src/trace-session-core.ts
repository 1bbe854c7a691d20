import { MonotonicClock, newRunId, utcTimestamp } from "@cg/clock";
import {
  type ExecutionStep,
  encodeGradientEvent,
  encodeMetaEvent,
  GRADIENT_STATES,
  type GradientState,
  type MemoryAction,
  type SpanKind,
  type U64,
} from "@cg/schema/core";
import { LineEmitter } from "./line-emitter.js";
import { MemorySink } from "./memory-sink.js";
import { outOfLine } from "./out-of-line.js";
import type { ProfileRunFields } from "./profile-run.js";
import type { MemoryRecord, OpRecord, TensorRecord } from "./record-inputs.js";
import { enumText, invalidField, jsonString } from "./serialize/json-parts.js";
import {
  deviceMemoryLine,
  memoryLine,
  opLine,
  putDeviceMemoryLine,
  putMemoryLine,
  putOpLine,
  putTensorLine,
  tensorLine,
} from "./serialize/record-lines.js";
import { NO_PIECES, SPAN_END, SPAN_START } from "./serialize/span-line-writers.js";
import { SpanPiecesCache } from "./serialize/span-pieces.js";
import { createSyncSpanContext, type SpanContextStore } from "./span-context.js";
import { SpanGuard, type SpanOwner } from "./span-guard.js";
import type { SpanHandle, SpanRef } from "./span-handle.js";
import type { SpanOptions, TraceRecorder } from "./trace-recorder.js";
import { TraceSessionError } from "./trace-session-error.js";
import type { CaptureClock, TraceSessionOptions } from "./trace-session-options.js";
import type { TraceSink } from "./trace-sink.js";
import { TraceWriteError } from "./trace-write-error.js";
import { metaEvent, validateRun } from "./validate-run.js";

export type { CaptureClock, TraceSessionOptions } from "./trace-session-options.js";

const OPEN = 0;
const FINISHED = 1;
/** Passed as `run` to build the one NOOP instance (module-private: no caller can pass it). */
const NOOP_RUN = Symbol("noop session");

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

// The real span paths, set by the class's static block (they call its private methods).
let beginOutOfLine: (
  session: TraceSessionCore,
  name: string,
  kind: SpanKind,
  measured: boolean,
  step: ExecutionStep | undefined,
) => SpanGuard;
let endOutOfLine: (session: TraceSessionCore, span: SpanHandle) => void;
let endIfOpenOutOfLine: (session: TraceSessionCore, span: SpanGuard) => void;

/**
 * One capture written as `candle-graph/trace/6` (spec §13). Browser-safe: it writes to any
 * `TraceSink`. In Node use `TraceSession` (file output, AsyncLocalStorage, flush at exit).
 */
export class TraceSessionCore<S extends TraceSink = TraceSink> implements TraceRecorder, SpanOwner {
  /**
   * True for every session a caller can create; false only on the no-op recorder, which is typed
   * as a `TraceRecorder`. Check it before building a record in a hot loop that may run closed.
   */
  readonly isRecording: true;
  readonly sink: S;
  readonly run: ProfileRunFields;
  /** `meta.run_id` as written. */
  readonly runId: string;
  readonly #clock: CaptureClock;
  readonly #context: SpanContextStore<SpanGuard>;
  /** Every line goes out through here: byte or text, commit, flush, the sticky error. */
  readonly #out: LineEmitter;
  readonly #zeroOpTimestampMeansNow: boolean;
  readonly #root: SpanGuard;
  readonly #now: () => number;
  /** Guards begun with `begin*`, in begin order; ended ones are removed wherever they are. */
  readonly #stack: SpanGuard[] = [];
  /** The span lines' text that depends only on a span's name, kind, measured flag and step. */
  readonly #pieces = new SpanPiecesCache(SPAN_START.plan);
  #spanCounter = 1;
  #gradientCounter = 0;
  #openSpans = 0;
  #activeContexts = 0;
  #state = OPEN;
  /**
   * True only for the closed-gate recorder (`NOOP_SESSION`): an instance of this same class, so a
   * call site that ran the captured step with a real session stays monomorphic in the method it
   * calls, and each method's first check ends the call. Compared with `=== true`: one load and one
   * compare, where a plain truthiness test compiles to a chain of type checks.
   */
  readonly #noop: boolean;

  static {
    // The real span paths, entered through functions V8 does not inline (see out-of-line.ts), so
    // the `begin*`/`end` wrappers stay a flag check and a call wherever they are compiled.
    beginOutOfLine = outOfLine(
      (
        session: TraceSessionCore,
        name: string,
        kind: SpanKind,
        measured: boolean,
        step: ExecutionStep | undefined,
      ): SpanGuard => session.#begin(name, kind, measured, step, false),
    );
    endOutOfLine = outOfLine((session: TraceSessionCore, span: SpanHandle): void =>
      session.#endChecked(span),
    );
    endIfOpenOutOfLine = outOfLine((session: TraceSessionCore, span: SpanGuard): void => {
      if (!span.isEnded) session.#end(span);
    });
  }

  /**
   * Opens a session on `sink`: writes `meta` and the root span `s1`, then starts the capture clock.
   * @throws TraceSessionError (`invalid_run`) for invalid provenance, TraceWriteError when the first
   * lines cannot be written.
   */
  constructor(run: ProfileRunFields, sink: S, options: TraceSessionOptions = {}) {
    if ((run as unknown) === NOOP_RUN) {
      // The no-op recorder: same fields, nothing written, every method returns at its first check.
      this.isRecording = false as true;
      this.sink = sink;
      this.#out = new LineEmitter(sink, undefined);
      this.run = run;
      this.#zeroOpTimestampMeansNow = false;
      this.#context = createSyncSpanContext<SpanGuard>();
      this.runId = "";
      this.#clock = NO_CLOCK;
      this.#now = NO_CLOCK.now;
      // Serial 0: the id is "", as the no-op span's has always been.
      this.#root = new SpanGuard(this, 0, 0, undefined, 0, undefined, true);
      this.#noop = true;
      return;
    }
    validateRun(run);
    this.#noop = false;
    this.isRecording = true;
    this.sink = sink;
    this.#out = new LineEmitter(sink, options.onError);
    this.run = run;
    this.#zeroOpTimestampMeansNow = options.zeroOpTimestampMeansNow === true;
    this.#context = options.spanContext ?? createSyncSpanContext<SpanGuard>();
    this.runId = options.runId ?? newRunId();
    const timestamp = options.timestamp ?? utcTimestamp();
    jsonString(run.entrypoint, "entrypoint");
    const rootPieces = this.#pieces.get(run.entrypoint, "function", false, undefined);
    try {
      sink.append(encodeMetaEvent(metaEvent(run, jsonStringChecked(this.runId, "runId"), timestamp)) + "\n");
      sink.append(SPAN_START.text(1, 0, 0, rootPieces));
    } catch (error) {
      throw TraceWriteError.fromCause("writing the trace header to", sink.location, error);
    }
    const clock = options.clock ?? new MonotonicClock();
    this.#clock = clock;
    this.#now = () => clock.now();
    this.#root = new SpanGuard(this, 1, 0, undefined, 0, undefined, true);
  }

  /** A session that keeps the trace in memory; read it with `session.sink.text()` / `.lines()`. */
  static inMemory(run: ProfileRunFields, options?: TraceSessionOptions): TraceSessionCore<MemorySink> {
    return new TraceSessionCore(run, new MemorySink(), options);
  }

  /** The first write failure, if any (sticky). */
  get failure(): TraceWriteError | undefined {
    return this.#out.failure;
  }

  /** Whether `finish` has completed. */
  get finished(): boolean {
    return this.#state === FINISHED;
  }

  /** The root span's id. */
  get rootSpanId(): string {
    return "s1";
  }

  /** Number of spans begun and not yet ended, the root excluded. */
  get openSpanCount(): number {
    return this.#openSpans;
  }

  // ---- spans -------------------------------------------------------------------------------------

  beginSpan(name: string, kind: SpanKind = "function"): SpanHandle {
    if (this.#noop === true) return this.#root;
    return beginOutOfLine(this, name, kind, false, undefined);
  }

  beginMeasurement(name: string): SpanHandle {
    if (this.#noop === true) return this.#root;
    return beginOutOfLine(this, name, "function", true, undefined);
  }

  beginStepSpan(name: string, step: ExecutionStep, kind: SpanKind = "function"): SpanHandle {
    if (this.#noop === true) return this.#root;
    return beginOutOfLine(this, name, kind, false, step);
  }

  span<R>(name: string, fn: (span: SpanHandle) => R, options?: SpanOptions): R {
    if (this.#noop === true) return fn(this.#root);
    if (typeof fn !== "function") throw invalidField("fn", "a function", fn);
    const guard = this.#begin(
      name,
      options?.kind ?? "function",
      options?.measured === true,
      options?.step,
      true,
    );
    this.#activeContexts++;
    let result: R;
    try {
      result = this.#context.run(guard, () => fn(guard));
    } catch (error) {
      this.#activeContexts--;
      this.endSpanIfOpen(guard);
      throw error;
    }
    if (isPromiseLike(result)) {
      return Promise.resolve(result).then(
        (value) => {
          this.#activeContexts--;
          this.endSpanIfOpen(guard);
          return value;
        },
        (error: unknown) => {
          this.#activeContexts--;
          this.endSpanIfOpen(guard);
          throw error;
        },
      ) as R;
    }
    this.#activeContexts--;
    this.endSpanIfOpen(guard);
    return result;
  }

  endSpan(span: SpanHandle): void {
    if (this.#noop === true) return;
    endOutOfLine(this, span);
  }

  #endChecked(span: SpanHandle): void {
    if (!(span instanceof SpanGuard) || span.owner !== this) {
      throw new TraceSessionError({
        message: `span ${describe(span)} does not belong to this trace session`,
        code: "foreign_span",
      });
    }
    if (span.isEnded) {
      throw new TraceSessionError({
        message: `span ${span.id} was already ended`,
        code: "span_already_ended",
      });
    }
    if (span === this.#root) {
      throw new TraceSessionError({
        message: "the root span s1 is ended by finish()",
        code: "span_already_ended",
      });
    }
    this.#end(span);
  }

  /** @internal */
  endSpanIfOpen(span: SpanGuard): void {
    if (this.#noop === false) endIfOpenOutOfLine(this, span);
  }

  /** @internal */
  readReading(): number {
    return this.#clock.now();
  }

  currentSpanId(): string {
    if (this.#noop === true) return "";
    return this.#current().id;
  }

  #current(): SpanGuard {
    return this.#currentIn(this.#activeContexts === 0 ? undefined : this.#context.get());
  }

  /** The innermost open guard begun in `context`, else the `span(...)` frame itself, else the root. */
  #currentIn(context: SpanGuard | undefined): SpanGuard {
    const stack = this.#stack;
    for (let index = stack.length - 1; index >= 0; index--) {
      const guard = stack[index] as SpanGuard;
      if (guard.context === context) return guard;
    }
    return context ?? this.#root;
  }

  #begin(
    nameText: string,
    kind: SpanKind,
    measured: boolean,
    step: ExecutionStep | undefined,
    contextual: boolean,
  ): SpanGuard {
    this.#assertOpen();
    const pieces = this.#pieces.get(nameText, kind, measured, step);
    const startReading = this.#clock.now();
    const context = this.#activeContexts === 0 ? undefined : this.#context.get();
    const parent = this.#currentIn(context);
    const serial = ++this.#spanCounter;
    const guard = new SpanGuard(
      this,
      serial,
      parent.serial,
      step,
      startReading,
      contextual ? undefined : context,
      contextual,
    );
    if (!contextual) this.#stack.push(guard);
    this.#openSpans++;
    const out = this.#out;
    const at = out.start();
    if (
      at < 0 ||
      !out.commit(SPAN_START.bytes(out.target, at, serial, parent.serial, startReading, pieces))
    ) {
      out.text(SPAN_START.text(serial, parent.serial, startReading, pieces));
    }
    return guard;
  }

  #end(span: SpanGuard): void {
    const duration = this.#clock.now() - span.startReading;
    span.isEnded = true;
    this.#openSpans--;
    if (!span.contextual) {
      const stack = this.#stack;
      if (stack[stack.length - 1] === span) stack.pop();
      else stack.splice(stack.lastIndexOf(span), 1);
    }
    // After finish the file is closed; an end then has nowhere to go (the trace already shows it open).
    if (this.#state !== OPEN) return;
    const durationNs = duration > 0 ? duration : 0;
    const out = this.#out;
    const at = out.start();
    if (at < 0 || !out.commit(SPAN_END.bytes(out.target, at, span.serial, 0, durationNs, NO_PIECES))) {
      out.text(SPAN_END.text(span.serial, 0, durationNs, NO_PIECES));
    }
  }

  // ---- records -----------------------------------------------------------------------------------

  recordOp(span: SpanRef, record: OpRecord): void {
    if (this.#noop === true) return;
    this.#assertOpen();
    // The byte path bails out (-1) on anything uncommon, invalid or too long; the string
    // serializer then validates, names a bad field and writes the same bytes.
    const out = this.#out;
    const spanId = this.#byteSpanId(span);
    const at = spanId === undefined ? -1 : out.start();
    const zeroMeansNow = this.#zeroOpTimestampMeansNow;
    if (at < 0 || !out.commit(putOpLine(out.target, at, spanId as string, record, zeroMeansNow, this.#now))) {
      const effective =
        zeroMeansNow && record?.timestampNs === 0 ? { ...record, timestampNs: undefined } : record;
      out.text(opLine(this.#spanIdJson(span), effective, this.#now));
    }
  }

  recordTensor(span: SpanRef, record: TensorRecord): void {
    if (this.#noop === true) return;
    this.#assertOpen();
    const out = this.#out;
    const spanId = this.#byteSpanId(span);
    const at = spanId === undefined ? -1 : out.start();
    if (at < 0 || !out.commit(putTensorLine(out.target, at, spanId as string, record))) {
      out.text(tensorLine(this.#spanIdJson(span), record));
    }
  }

  recordMemoryAlloc(span: SpanRef, record: MemoryRecord): void {
    this.#recordMemory(span, record, "alloc");
  }

  recordMemoryFree(span: SpanRef, record: MemoryRecord): void {
    this.#recordMemory(span, record, "free");
  }

  #recordMemory(span: SpanRef, record: MemoryRecord, action: MemoryAction): void {
    if (this.#noop === true) return;
    this.#assertOpen();
    const out = this.#out;
    const spanId = this.#byteSpanId(span);
    const at = spanId === undefined ? -1 : out.start();
    if (at < 0 || !out.commit(putMemoryLine(out.target, at, spanId as string, record, action, this.#now))) {
      out.text(memoryLine(this.#spanIdJson(span), record, action, this.#now));
    }
  }

  /**
   * The span id for the byte path: a string id, or a live guard of this session; undefined (take
   * the string path, which validates and names the error) for anything else or when bytes are off.
   */
  #byteSpanId(span: SpanRef): string | undefined {
    if (!this.#out.takesBytes) return undefined;
    if (typeof span === "string") return span;
    return span instanceof SpanGuard && span.owner === this ? span.id : undefined;
  }

  recordDeviceMemory(
    device: string,
    usedBytes: U64,
    freeBytes: U64,
    timestampNs?: U64,
    reservedBytes?: U64,
  ): void {
    if (this.#noop === true) return;
    this.#assertOpen();
    const out = this.#out;
    const at = out.start();
    if (
      at < 0 ||
      !out.commit(
        putDeviceMemoryLine(
          out.target,
          at,
          device,
          usedBytes,
          freeBytes,
          timestampNs,
          reservedBytes,
          this.#now,
        ),
      )
    ) {
      out.text(deviceMemoryLine(device, usedBytes, freeBytes, timestampNs, reservedBytes, this.#now));
    }
  }

  /** One `gradient` fact with id `gradient-<n>`; a non-finite norm is written as `"norm":null`. */
  recordGradient(root: string, key: string, state: GradientState, norm?: number): void {
    if (this.#noop === true) return;
    this.#assertOpen();
    jsonString(root, "root");
    jsonString(key, "key");
    enumText(state, GRADIENT_STATES, "state");
    if (norm !== undefined && typeof norm !== "number") throw invalidField("norm", "a number", norm);
    const eventId = `gradient-${this.#gradientCounter + 1}`;
    const line = encodeGradientEvent(
      norm === undefined
        ? { kind: "gradient", event_id: eventId, root, key, state }
        : { kind: "gradient", event_id: eventId, root, key, state, norm },
    );
    this.#gradientCounter++;
    this.#out.text(line + "\n");
  }

  elapsedNs(): number {
    return this.#clock.now();
  }

  #spanIdJson(span: SpanRef): string {
    if (typeof span === "string") return jsonString(span, "spanId");
    if (span instanceof SpanGuard && span.owner === this) return '"' + span.id + '"';
    if (!(span instanceof SpanGuard)) throw invalidField("spanId", "a string or a span guard", span);
    throw new TraceSessionError({
      message: `span ${describe(span)} does not belong to this trace session`,
      code: "foreign_span",
    });
  }

  // ---- output ------------------------------------------------------------------------------------

  #assertOpen(): void {
    if (this.#state !== OPEN) {
      throw new TraceSessionError({
        message: `trace session for ${this.sink.location} is already finished`,
        code: "session_finished",
      });
    }
  }

  #previouslyFailed(failure: TraceWriteError): TraceWriteError {
    return new TraceWriteError({
      message: `trace session previously failed: ${failure.message}`,
      cause: failure,
      target: failure.target,
      systemCode: failure.systemCode,
    });
  }

  /**
   * Writes out buffered lines.
   * @throws TraceWriteError `trace session previously failed: ...` after a write failure.
   */
  flush(): void {
    if (this.#noop === true) return;
    const out = this.#out;
    if (out.failure !== undefined) throw this.#previouslyFailed(out.failure);
    if (this.#state !== OPEN) return;
    out.flushQuietly();
    if (out.failure !== undefined) throw this.#previouslyFailed(out.failure);
  }

  /**
   * Ends the capture (spec §13.5): writes the root `span_end` with the elapsed time, flushes,
   * closes the sink and returns its location (the file path).
   * @throws TraceWriteError after a write failure (the session is then closed);
   *   TraceSessionError `spans_still_open` while nested spans are open (the session stays usable).
   */
  finish(): string {
    if (this.#noop === true) return "";
    const duration = this.#clock.now();
    this.#assertOpen();
    const out = this.#out;
    if (out.failure === undefined && this.#openSpans !== 0) {
      out.flushQuietly();
      throw new TraceSessionError({
        message: `cannot finish trace with ${this.#openSpans} nested spans still open`,
        code: "spans_still_open",
      });
    }
    if (out.failure === undefined) {
      this.#root.isEnded = true;
      out.text(SPAN_END.text(1, 0, duration, NO_PIECES));
    }
    // After a failure the sink is still released; the sticky error is what the caller gets.
    out.close();
    this.#state = FINISHED;
    if (out.failure !== undefined) throw this.#previouslyFailed(out.failure);
    return this.sink.location;
  }
}

/** The no-op recorder's clock: never read for a line, always 0. */
const NO_CLOCK: CaptureClock = { now: () => 0 };

/**
 * @internal The one no-op recorder (`NOOP_SESSION`): a closed instance of this class on a sink that
 * is never written.
 */
export function createNoopSession(): TraceSessionCore<MemorySink> {
  return new TraceSessionCore(NOOP_RUN as unknown as ProfileRunFields, new MemorySink("noop"));
}

function jsonStringChecked(value: string, field: string): string {
  jsonString(value, field);
  return value;
}

function describe(span: unknown): string {
  const id = (span as { id?: unknown } | null)?.id;
  return typeof id === "string" ? id : String(span);
}
