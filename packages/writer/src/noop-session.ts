import type { SpanHandle } from "./span-handle.js";
import type { TraceRecorder } from "./trace-recorder.js";

/** The span every no-op `begin*` returns: one shared object, nothing to allocate. */
export const NOOP_SPAN: SpanHandle = Object.freeze({
  id: "",
  ended: false,
  elapsedNs: () => 0,
  end: () => {},
  [Symbol.dispose]: () => {},
});

const noSpan = (): SpanHandle => NOOP_SPAN;
const nothing = (): void => {};

/**
 * A recorder that records nothing: what a closed `CaptureGate` hands out for every step that is
 * not captured. Same interface as a session; every call is a constant-time no-op, `span` just calls
 * its function.
 */
export const NOOP_SESSION: TraceRecorder = Object.freeze({
  isRecording: false,
  beginSpan: noSpan,
  beginMeasurement: noSpan,
  beginStepSpan: noSpan,
  span: <R>(_name: string, fn: (span: SpanHandle) => R): R => fn(NOOP_SPAN),
  endSpan: nothing,
  currentSpanId: () => "",
  recordOp: nothing,
  recordTensor: nothing,
  recordMemoryAlloc: nothing,
  recordMemoryFree: nothing,
  recordDeviceMemory: nothing,
  recordGradient: nothing,
  elapsedNs: () => 0,
  flush: nothing,
  finish: () => "",
});
