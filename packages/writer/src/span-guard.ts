import type { ExecutionStep } from "@cg/schema/core";
import type { SpanHandle } from "./span-handle.js";

/** The session side of a guard (kept as an interface so guards do not import the session). */
export interface SpanOwner {
  endSpan(span: SpanHandle): void;
  /** @internal Ends the span if it is still open, never throws for an ended span. */
  endSpanIfOpen(span: SpanGuard): void;
  /** @internal */
  readReading(): number;
}

/** A span opened by a session. Create through the session's `begin*` methods or `span`. */
export class SpanGuard implements SpanHandle {
  /** @internal the N of the id `sN` */
  readonly serial: number;
  /** @internal the parent's serial; 0 for the root, which has none */
  readonly parentSerial: number;
  readonly step: ExecutionStep | undefined;
  /** @internal the owning session */
  readonly owner: SpanOwner;
  /** @internal clock reading at the span's start instant */
  readonly startReading: number;
  /** @internal the `span(...)` context this guard was begun in (its frame for `span` itself) */
  readonly context: SpanGuard | undefined;
  /** @internal true for spans begun by `span(...)`, which live in the async context, not the stack */
  readonly contextual: boolean;
  /** @internal */
  isEnded = false;
  // The id text is built on first request only: most spans are written by serial number alone.
  #id: string | undefined;

  constructor(
    owner: SpanOwner,
    serial: number,
    parentSerial: number,
    step: ExecutionStep | undefined,
    startReading: number,
    context: SpanGuard | undefined,
    contextual: boolean,
  ) {
    this.owner = owner;
    this.serial = serial;
    this.parentSerial = parentSerial;
    this.step = step;
    this.startReading = startReading;
    this.context = context;
    this.contextual = contextual;
  }

  /** The span id as written on the wire (`s2`, `s3`, ...). */
  get id(): string {
    // Serial 0 is the no-op recorder's span, whose id is "".
    if (this.#id === undefined) this.#id = this.serial === 0 ? "" : "s" + this.serial;
    return this.#id;
  }

  /** The parent span's id; undefined for the root. */
  get parentId(): string | undefined {
    return this.parentSerial === 0 ? undefined : "s" + this.parentSerial;
  }

  get ended(): boolean {
    return this.isEnded;
  }

  elapsedNs(): number {
    const elapsed = this.owner.readReading() - this.startReading;
    return elapsed > 0 ? elapsed : 0;
  }

  end(): void {
    // The no-op recorder's span (serial 0) ends here, without a call into its session.
    if (this.serial !== 0) this.owner.endSpan(this);
  }

  [Symbol.dispose](): void {
    if (this.serial !== 0 && !this.isEnded) this.owner.endSpanIfOpen(this);
  }
}
