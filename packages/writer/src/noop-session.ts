import type { SpanHandle } from "./span-handle.js";
import type { TraceRecorder } from "./trace-recorder.js";
import { createNoopSession } from "./trace-session-core.js";

/**
 * A recorder that records nothing: what a closed `CaptureGate` hands out for every step that is
 * not captured. Same interface as a session; every call is a constant-time no-op, `span` just calls
 * its function.
 *
 * It is an instance of the session class itself in a closed state (each method's first check
 * returns), not a separate object: instrumented code runs with the real session during the
 * captured step and with this one on every other step, and one class keeps those call sites
 * monomorphic, so the closed calls stay inlined after a capture.
 */
export const NOOP_SESSION: TraceRecorder = Object.freeze(createNoopSession());

/**
 * The span every no-op `begin*` returns: one shared guard, nothing to allocate; its id is "". Not
 * frozen (its fields are read-only already): a frozen guard would have a map of its own, and `end()`
 * call sites would see two.
 */
export const NOOP_SPAN: SpanHandle = NOOP_SESSION.beginSpan("");
