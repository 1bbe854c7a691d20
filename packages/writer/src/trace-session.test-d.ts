import { describe, expectTypeOf, it } from "vitest";
import {
  CaptureGate,
  type FileSink,
  type MemorySink,
  NOOP_SESSION,
  NOOP_SPAN,
  ProfileRun,
  type SpanHandle,
  type TraceRecorder,
  TraceSession,
  TraceSessionCore,
  type TraceSink,
} from "./index.js";

const run = ProfileRun.training("train::update", 1, "cpu");

class CountingSink implements TraceSink {
  readonly location = "counting";
  lines = 0;
  append(): void {
    this.lines++;
  }
  flush(): void {}
  close(): void {}
}

describe("TraceSession<Sink>", () => {
  it("carries the sink's own type from every way of opening", () => {
    expectTypeOf(TraceSession.open("t.jsonl", run)).toEqualTypeOf<TraceSession<FileSink>>();
    expectTypeOf(TraceSession.open("t.jsonl", run).sink).toEqualTypeOf<FileSink>();
    expectTypeOf(TraceSession.inMemory(run).sink).toEqualTypeOf<MemorySink>();
    expectTypeOf(TraceSession.withSink(run, new CountingSink()).sink.lines).toEqualTypeOf<number>();
    expectTypeOf(TraceSessionCore.inMemory(run)).toEqualTypeOf<TraceSessionCore<MemorySink>>();
    expectTypeOf(new TraceSessionCore(run, new CountingSink()).sink).toEqualTypeOf<CountingSink>();
  });

  it("defaults to any TraceSink and is a TraceRecorder", () => {
    expectTypeOf<TraceSession["sink"]>().toEqualTypeOf<TraceSink>();
    expectTypeOf<TraceSession<MemorySink>>().toExtend<TraceRecorder>();
    expectTypeOf<TraceSession<MemorySink>>().toExtend<TraceSessionCore<MemorySink>>();
  });

  it("accepts only sinks", () => {
    // @ts-expect-error a sink needs append, flush and close
    type NotASink = TraceSession<{ location: string }>;
    expectTypeOf<NotASink>().not.toBeNever();
  });

  it("returns what the span callback returns, sync or async", () => {
    const session = TraceSession.inMemory(run);
    expectTypeOf(session.span("a", () => 42)).toEqualTypeOf<number>();
    expectTypeOf(session.span("a", async () => "x")).toEqualTypeOf<Promise<string>>();
    expectTypeOf(session.beginSpan("a")).toEqualTypeOf<SpanHandle>();
    expectTypeOf(session.finish()).toEqualTypeOf<string>();
  });
});

describe("the no-op session", () => {
  it("has the recorder interface and the same span results", () => {
    expectTypeOf(NOOP_SESSION).toEqualTypeOf<TraceRecorder>();
    expectTypeOf(NOOP_SPAN).toEqualTypeOf<SpanHandle>();
    expectTypeOf(NOOP_SESSION.span("a", () => 42)).toEqualTypeOf<number>();
    expectTypeOf(NOOP_SESSION.span("a", async () => "x")).toEqualTypeOf<Promise<string>>();
    expectTypeOf(NOOP_SESSION.beginStepSpan("f", "forward")).toEqualTypeOf<SpanHandle>();
    // @ts-expect-error the step must be an execution step
    NOOP_SESSION.beginStepSpan("f", "sideways");
  });

  it("is what a closed gate hands out beside the real session", () => {
    const gate = new CaptureGate(2, () => TraceSession.inMemory(run));
    expectTypeOf(gate.step(1)).toEqualTypeOf<TraceSession<MemorySink> | TraceRecorder>();
    expectTypeOf(gate.session).toEqualTypeOf<TraceSession<MemorySink> | undefined>();
  });
});
