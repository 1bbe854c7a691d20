import { describe, expect, it } from "vitest";
import { MemorySink } from "./memory-sink.js";
import { ProfileRun } from "./profile-run.js";
import { type LineTarget, lineTarget } from "./serialize/line-target.js";
import { TraceSessionCore } from "./trace-session-core.js";
import type { LineBufferSink, TraceSink } from "./trace-sink.js";

/** A byte-buffer sink in memory that counts how lines arrive. */
class CountingSink implements TraceSink, LineBufferSink {
  readonly location = "counting";
  readonly #bytes: Uint8Array;
  readonly #target: LineTarget;
  readonly #decoder = new TextDecoder();
  #offset = 0;
  output = "";
  textLines = 0;
  flushes = 0;
  constructor(size: number) {
    this.#bytes = new Uint8Array(size);
    this.#target = lineTarget(this.#bytes);
  }
  lineBuffer(): LineTarget {
    return this.#target;
  }
  get lineOffset(): number {
    return this.#offset;
  }
  commitLine(end: number): void {
    this.#offset = end;
  }
  append(line: string): void {
    this.flush();
    this.textLines++;
    this.output += line;
  }
  flush(): void {
    this.flushes++;
    this.output += this.#decoder.decode(this.#bytes.subarray(0, this.#offset));
    this.#offset = 0;
  }
  close(): void {
    this.flush();
  }
}

const run = ProfileRun.training("train::update", 1, "cpu");

function record(session: TraceSessionCore, count: number): void {
  for (let index = 0; index < count; index++) {
    const span = session.beginSpan(`layer-${index % 7}`);
    session.recordOp(span, {
      opName: `matmul-${index}`,
      inputs: ["a", "b"],
      shape: [index, 3],
      dtype: "f32",
      device: "cpu",
      durationNs: index,
    });
    session.recordTensor(span, { tensorId: `t${index}`, shape: [index], dtype: "f16", device: "cpu" });
    session.recordMemoryAlloc(span, { tensorId: `t${index}`, device: "cpu", bytes: index, dtype: "f16" });
    session.recordDeviceMemory("cpu", index, index + 1);
    span.end();
  }
}

describe("LineEmitter", () => {
  for (const size of [1024, 4096, 65536]) {
    it(`keeps every common line on the byte path, flushing when the buffer is full (${size} B)`, () => {
      let reading = 0;
      const clock = { now: () => reading++ };
      const options = { clock, runId: "r", timestamp: "2026-01-01T00:00:00Z" };
      const sink = new CountingSink(size);
      const session = new TraceSessionCore(run, sink, options);
      const headerLines = sink.textLines;
      record(session, 2000);
      const textBeforeFinish = sink.textLines;
      session.finish();
      // Only the header and the root end went through text: no line fell back near a buffer's end.
      expect(headerLines).toBe(2);
      expect(textBeforeFinish).toBe(2);
      expect(sink.flushes).toBeGreaterThan(1);
      reading = 0;
      const reference = new TraceSessionCore(run, new MemorySink(), { ...options, clock });
      record(reference, 2000);
      reference.finish();
      expect(sink.output).toBe(reference.sink.text());
    });
  }

  it("a failing flush becomes the sticky error and stops output", () => {
    const sink = new CountingSink(1024);
    const errors: Error[] = [];
    const session = new TraceSessionCore(run, sink, { onError: (error) => errors.push(error) });
    sink.flush = () => {
      throw new Error("disk gone");
    };
    record(session, 50);
    const written = sink.output;
    record(session, 50);
    expect(sink.output).toBe(written);
    expect(errors).toHaveLength(1);
    expect(session.failure?.message).toContain("disk gone");
    expect(() => session.finish()).toThrow(/previously failed: .*disk gone/);
  });
});
