import type { ExecutionStep } from "@cg/schema";
import type { SpanHandle } from "./span-handle.js";

/** The session side of a guard (kept as an interface so guards do not import the session). */
export interface SpanOwner {
  endSpan(span: SpanHandle): void;
  /** Internal: ends the span if it is still open, never throws for an ended span. */
  endSpanIfOpen(span: SpanGuard): void;
  readReading(): number;
}

/** A span opened by a session. Create through the session's `begin*` methods or `span`. */
export class SpanGuard implements SpanHandle {
  readonly id: string;
  readonly parentId: string | undefined;
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

  constructor(
    owner: SpanOwner,
    id: string,
    parentId: string | undefined,
    step: ExecutionStep | undefined,
    startReading: number,
    context: SpanGuard | undefined,
    contextual: boolean,
  ) {
    this.owner = owner;
    this.id = id;
    this.parentId = parentId;
    this.step = step;
    this.startReading = startReading;
    this.context = context;
    this.contextual = contextual;
  }

  get ended(): boolean {
    return this.isEnded;
  }

  elapsedNs(): number {
    const elapsed = this.owner.readReading() - this.startReading;
    return elapsed > 0 ? elapsed : 0;
  }

  end(): void {
    this.owner.endSpan(this);
  }

  [Symbol.dispose](): void {
    if (!this.isEnded) this.owner.endSpanIfOpen(this);
  }
}
