import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  MemorySink,
  ProfileRun,
  TraceSession,
  TraceSessionError,
  type TraceSink,
  TraceWriteError,
} from "@cg/writer";
import { describe, expect, it } from "vitest";
import { exitFlushRegistrySize } from "../src/node/exit-flush.js";
import { checkTrace, tempDirForFile } from "./support.js";

const run = ProfileRun.training("train::update", 1, "cpu");
const inDir = tempDirForFile("cg-writer-file-");

const op = { opName: "matmul", shape: [8, 8], dtype: "f32", device: "cpu", durationNs: 5 } as const;

describe("TraceSession.open", () => {
  it("creates parent directories, truncates, and returns the path from finish", () => {
    const path = inDir("a/b/c/trace.jsonl");
    mkdirSync(inDir("a/b/c"), { recursive: true });
    writeFileSync(path, "old content that must disappear\n".repeat(100));
    const session = TraceSession.open(path, run);
    session.recordOp("s1", op);
    expect(session.finish()).toBe(path);
    const { events } = checkTrace(readFileSync(path, "utf8"));
    expect(events.map((event) => event.kind)).toEqual(["meta", "span_start", "op", "span_end"]);
  });

  it("buffers until the buffer is full, flush or finish; line durability writes through", () => {
    const bufferedPath = inDir("buffered.jsonl");
    const buffered = TraceSession.open(bufferedPath, run, { bufferSize: 4096 });
    buffered.recordOp("s1", op);
    expect(readFileSync(bufferedPath, "utf8")).toBe("");
    buffered.flush();
    expect(readFileSync(bufferedPath, "utf8").split("\n")).toHaveLength(4);
    for (let index = 0; index < 100; index++) buffered.recordOp("s1", op);
    expect(readFileSync(bufferedPath, "utf8").split("\n").length).toBeGreaterThan(4);
    buffered.finish();
    expect(checkTrace(readFileSync(bufferedPath, "utf8")).events).toHaveLength(104);

    const linePath = inDir("line.jsonl");
    const line = TraceSession.open(linePath, run, { durability: "line" });
    expect(readFileSync(linePath, "utf8").split("\n")).toHaveLength(3);
    line.recordOp("s1", op);
    expect(readFileSync(linePath, "utf8").split("\n")).toHaveLength(4);
    line.finish();
  });

  it("rejects capture step 0 without touching the file", () => {
    const path = inDir("step0.jsonl");
    writeFileSync(path, "keep\n");
    let caught: unknown;
    try {
      TraceSession.open(path, ProfileRun.training("e", 0, "cpu"));
    } catch (error) {
      caught = error;
    }
    expect(TraceSessionError.isInstance(caught)).toBe(true);
    expect((caught as TraceSessionError).code).toBe("invalid_run");
    expect(readFileSync(path, "utf8")).toBe("keep\n");
  });

  it("a directory as the path is a clear error", () => {
    const error = captureError(() => TraceSession.open(inDir(), run));
    expect(TraceWriteError.isInstance(error)).toBe(true);
    expect((error as TraceWriteError).systemCode).toBe("EISDIR");
    expect((error as Error).message).toContain(inDir());
  });

  it("a parent that is a file is a clear error", () => {
    const file = inDir("plain-file");
    writeFileSync(file, "x");
    const error = captureError(() => TraceSession.open(join(file, "sub/trace.jsonl"), run));
    expect(TraceWriteError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /creating the parent directory of .*plain-file.*(ENOTDIR|EEXIST)/,
    );
  });

  it("registers with the exit flush while open and unregisters on finish", () => {
    const before = exitFlushRegistrySize();
    const session = TraceSession.open(inDir("registry.jsonl"), run);
    expect(exitFlushRegistrySize()).toBe(before + 1);
    session.finish();
    expect(exitFlushRegistrySize()).toBe(before);
  });
});

describe("write failures", () => {
  it("disk full: /dev/full reports ENOSPC through onError and finish, without throwing in hot paths", () => {
    const seen: TraceWriteError[] = [];
    const session = TraceSession.open("/dev/full", run, {
      onError: (error) => seen.push(error),
      bufferSize: 1024,
    });
    for (let index = 0; index < 200; index++) {
      using span = session.beginSpan(`s-${index}`);
      session.recordOp(span, op);
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]?.systemCode).toBe("ENOSPC");
    expect(seen[0]?.message).toMatch(/\/dev\/full.*ENOSPC/);
    expect(() => session.flush()).toThrowError(/trace session previously failed: .*\/dev\/full.*ENOSPC/);
    const error = captureError(() => session.finish());
    expect(TraceWriteError.isInstance(error)).toBe(true);
    expect((error as TraceWriteError).systemCode).toBe("ENOSPC");
    expect(session.finished).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it("a failure surfacing at finish (small capture on /dev/full) is raised by finish", () => {
    const session = TraceSession.open("/dev/full", run);
    session.recordOp("s1", op);
    expect(() => session.finish()).toThrowError(/ENOSPC/);
  });

  it("keeps everything written before the failure, and a throwing onError cannot crash the host", () => {
    class FailingSink implements TraceSink {
      readonly location = "failing-sink";
      readonly inner = new MemorySink();
      remaining: number;
      constructor(allowed: number) {
        this.remaining = allowed;
      }
      append(line: string): void {
        if (this.remaining-- <= 0) throw Object.assign(new Error("EIO: i/o error, write"), { code: "EIO" });
        this.inner.append(line);
      }
      flush(): void {}
      close(): void {}
    }
    const sink = new FailingSink(5);
    let calls = 0;
    const session = TraceSession.withSink(run, sink, {
      onError: () => {
        calls++;
        throw new Error("observer bug");
      },
    });
    for (let index = 0; index < 10; index++) session.recordOp("s1", { ...op, durationNs: index });
    expect(calls).toBe(1);
    expect(sink.inner.lines()).toHaveLength(5);
    expect(checkTrace(sink.inner.text()).events).toHaveLength(5);
    expect(() => session.finish()).toThrowError(
      "trace session previously failed: writing trace failing-sink failed: EIO: i/o error, write",
    );
  });
});

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
