import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeHealth, parseTrace, parseTraceText } from "@cg/parser";
import { type MemorySink, ProfileRun, TraceSession } from "@cg/writer";
import * as tf from "@tensorflow/tfjs";
import { afterAll, describe, expect, it } from "vitest";
import { runTfjsDemo } from "./demo-workload.js";
import { StepCapture } from "./step-capture.js";
import { TfjsProfilerError } from "./tfjs-profiler-error.js";

const directory = mkdtempSync(join(tmpdir(), "cg-tfjs-demo-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("runTfjsDemo", () => {
  it("trains the conv demo and writes a trusted trace of the chosen step, leaving no tensors behind", async () => {
    await tf.setBackend("cpu");
    const tensorsBefore = tf.memory().numTensors;
    const outPath = join(directory, "nested", "demo.jsonl");
    const result = await runTfjsDemo({
      outPath,
      steps: 3,
      captureStep: 3,
      architecture: "conv",
      batchSize: 8,
    });
    expect(result.path).toBe(outPath);
    expect(result.losses).toHaveLength(3);
    expect(result.losses.every(Number.isFinite)).toBe(true);
    expect(tf.memory().numTensors).toBe(tensorsBefore);
    const trace = await parseTrace(outPath);
    const health = analyzeHealth(trace);
    expect(health.trusted).toBe(true);
    expect(trace.run.entrypoint).toBe("tfjs-demo::conv");
    expect(trace.run.capture_step).toBe(3);
    expect(trace.run.tags).toMatchObject({ architecture: "conv", batch_size: "8", framework: "tfjs" });
    expect(trace.ops.length).toBe(result.capture?.summary.ops);
    expect(trace.gradients).toHaveLength(6);
  });

  it("opens the captured step's session through openSession when given", async () => {
    await tf.setBackend("cpu");
    const tensorsBefore = tf.memory().numTensors;
    const runs: ProfileRun[] = [];
    let session: TraceSession<MemorySink> | undefined;
    const result = await runTfjsDemo({
      steps: 3,
      captureStep: 2,
      batchSize: 8,
      openSession: (run) => {
        runs.push(run);
        session = TraceSession.inMemory(run);
        // Extra evidence recorded by the caller lands in the same trace.
        session.recordDeviceMemory("cuda:0", 1024, 2048);
        return session;
      },
    });
    expect(runs).toHaveLength(1);
    expect(runs[0]?.entrypoint).toBe("tfjs-demo::dense");
    expect(result.path).toBe("memory");
    expect(result.losses).toHaveLength(3);
    expect(tf.memory().numTensors).toBe(tensorsBefore);
    const trace = parseTraceText(session?.sink.text() ?? "");
    expect(analyzeHealth(trace).trusted).toBe(true);
    expect(trace.run.capture_step).toBe(2);
    expect(trace.ops.length).toBe(result.capture?.summary.ops);
    expect(trace.ops.length).toBeGreaterThan(0);
    expect(trace.gradients).toHaveLength(6);
    const devices = trace.device_memory.map((sample) => sample.device);
    expect(devices).toContain("cuda:0");
    expect(devices).toContain("cpu");
  });

  it("rejects without outPath or openSession", async () => {
    await expect(runTfjsDemo({})).rejects.toThrow(TfjsProfilerError);
  });

  it("refuses overlapping captures without disturbing the active one", () => {
    const session = TraceSession.inMemory(ProfileRun.training("overlap::update", 1, "cpu"));
    const outer = new StepCapture({ session, name: "outer" });
    outer.begin();
    const inner = new StepCapture({ session, name: "inner" });
    expect(() => inner.begin()).toThrow(TfjsProfilerError);
    expect(Object.hasOwn(tf.engine(), "runKernel")).toBe(true);
    tf.add(tf.scalar(1), tf.scalar(2)).dispose();
    expect(outer.end().ops).toBe(1);
    expect(Object.hasOwn(tf.engine(), "runKernel")).toBe(false);
    session.finish();
  });
});
