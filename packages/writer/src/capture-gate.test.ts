import { describe, expect, it } from "vitest";
import { CaptureGate } from "./capture-gate.js";
import { NOOP_SESSION, NOOP_SPAN } from "./noop-session.js";
import { ProfileRun } from "./profile-run.js";
import { TraceSessionCore } from "./trace-session-core.js";

describe("CaptureGate", () => {
  it("opens a real session only for the selected step", () => {
    const run = ProfileRun.training("e", 3, "cpu");
    const opened: number[] = [];
    const gate = new CaptureGate(run.capture_step, (step) => {
      opened.push(step);
      return TraceSessionCore.inMemory(run);
    });
    const recorders = [];
    for (let step = 1; step <= 5; step++) {
      const trace = gate.begin();
      recorders.push(trace);
      expect(gate.isCapturing).toBe(step === 3);
      trace.span("step", () => {
        using span = trace.beginStepSpan("forward", "forward");
        trace.recordOp(span, { opName: "x", dtype: "f32", device: "cpu", durationNs: 1 });
      });
      if (gate.isCapturing) trace.finish();
    }
    expect(opened).toEqual([3]);
    expect(recorders.filter((recorder) => recorder.isRecording)).toHaveLength(1);
    expect(recorders[0]).toBe(NOOP_SESSION);
    expect(gate.session?.sink.lines()).toHaveLength(8);
    expect(gate.step(3)).toBe(gate.session);
  });

  it("the no-op session hands out one shared span and runs span callbacks", async () => {
    const first = NOOP_SESSION.beginSpan("a");
    expect(first).toBe(NOOP_SPAN);
    expect(NOOP_SESSION.beginMeasurement("b")).toBe(first);
    expect(NOOP_SESSION.beginStepSpan("c", "backward")).toBe(first);
    first.end();
    first.end();
    expect(NOOP_SESSION.span("x", () => 5)).toBe(5);
    await expect(NOOP_SESSION.span("y", async () => 6)).resolves.toBe(6);
    expect(NOOP_SESSION.finish()).toBe("");
  });

  it("the no-op session ignores every record, ends nothing and stays usable after finish", () => {
    const span = NOOP_SESSION.beginSpan("a");
    expect(span.id).toBe("");
    expect(span.ended).toBe(false);
    expect(span.elapsedNs()).toBe(0);
    span[Symbol.dispose]();
    NOOP_SESSION.endSpan(span);
    NOOP_SESSION.recordOp(span, { opName: "x", dtype: "f32", device: "cpu", durationNs: 1 });
    NOOP_SESSION.recordTensor("s9", { tensorId: "t", shape: [1], dtype: "f32", device: "cpu" });
    NOOP_SESSION.recordMemoryAlloc(span, { tensorId: "t", device: "cpu", bytes: 4, dtype: "f32" });
    NOOP_SESSION.recordMemoryFree(span, { tensorId: "t", device: "cpu", bytes: 4, dtype: "f32" });
    NOOP_SESSION.recordDeviceMemory("cpu", 1, 2);
    NOOP_SESSION.recordGradient("r", "k", "present", 1);
    NOOP_SESSION.flush();
    expect(NOOP_SESSION.finish()).toBe("");
    expect(NOOP_SESSION.finish()).toBe("");
    expect(NOOP_SESSION.currentSpanId()).toBe("");
    expect(NOOP_SESSION.elapsedNs()).toBe(0);
    expect(NOOP_SESSION.isRecording).toBe(false);
    expect(span.ended).toBe(false);
    expect(Object.isFrozen(NOOP_SESSION)).toBe(true);
  });

  it("a real session refuses the no-op span as a span of another session", () => {
    const session = TraceSessionCore.inMemory(ProfileRun.training("e", 1, "cpu"));
    expect(() => session.endSpan(NOOP_SPAN)).toThrowError(/does not belong to this trace session/);
    expect(() =>
      session.recordOp(NOOP_SPAN, { opName: "x", dtype: "f32", device: "cpu", durationNs: 1 }),
    ).toThrowError(/does not belong to this trace session/);
    session.finish();
    expect(session.sink.lines()).toHaveLength(3);
  });

  it("refuses a step that is not one-based", () => {
    expect(
      () => new CaptureGate(0, () => TraceSessionCore.inMemory(ProfileRun.training("e", 1, "cpu"))),
    ).toThrowError(/captureStep must be a one-based integer/);
  });
});
