// The golden trace (spec Appendix A) reproduced byte for byte, and the reference session's own
// tests (spec Appendix D "Writer") ported.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { ProfileRun, TraceSession } from "@cg/writer";
import { describe, expect, it } from "vitest";
import { checkTrace, eventsOfKind, scriptedClock } from "./support.js";

describe("golden trace", () => {
  it("the session API reproduces valid/golden-train.jsonl byte for byte", () => {
    const run = ProfileRun.training("demo::train::update", 1, "cuda:0")
      .tag("precision", "f32")
      .tag("physical_batch", "128")
      .measuredRegionDeviceSynchronized();
    // Clock readings in call order: measurement, forward begin/end, backward begin/end,
    // optimizer begin/end, measurement end, finish.
    const clock = scriptedClock([1000, 2000, 32000, 33000, 73000, 74000, 89000, 91000, 100000]);
    const session = TraceSession.inMemory(run, {
      clock,
      runId: "run-4242-1754330400123456789",
      timestamp: "2025-08-04T18:00:00.123Z",
    });
    {
      using measured = session.beginMeasurement("demo/update-000000000001");
      {
        using forward = session.beginStepSpan("demo/update-000000000001/forward", "forward");
        session.recordOp(forward, {
          opName: "matmul",
          inputs: ["t0", "t1"],
          output: "t2",
          shape: [32, 32],
          dtype: "f32",
          device: "cuda:0",
          durationNs: 1200,
          timestampNs: 5000,
          inputStorageBytes: 8192,
        });
        session.recordTensor(forward, {
          tensorId: "t2",
          shape: [32, 32],
          dtype: "f32",
          device: "cuda:0",
          requiresGrad: false,
          category: "activation",
        });
        session.recordMemoryAlloc(forward.id, {
          tensorId: "t2",
          opName: "matmul",
          device: "cuda:0",
          bytes: 4096,
          shape: [32, 32],
          dtype: "f32",
          category: "activation",
          timestampNs: 5000,
        });
      }
      const backward = session.beginStepSpan("demo/update-000000000001/backward", "backward");
      session.recordMemoryFree(backward, {
        tensorId: "t2",
        device: "cuda:0",
        bytes: 4096,
        shape: [32, 32],
        dtype: "f32",
        category: "activation",
        timestampNs: 70000,
      });
      session.recordGradient("vb", "encoder.weight", "present", 0.42);
      session.recordGradient("vb", "head.bias", "missing");
      backward.end();
      session.span(
        "demo/update-000000000001/optimizer",
        () => session.recordDeviceMemory("cuda:0", 1073741824, 24696061952, 88000),
        { step: "optimizer" },
      );
      expect(measured.id).toBe("s2");
    }
    session.finish();
    const golden = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"), "utf8");
    expect(session.sink.text()).toBe(golden);
  });
});

describe("reference session tests (Appendix D)", () => {
  it("nested spans with parents and durations; op storage resolved; no memory events", () => {
    const session = TraceSession.inMemory(ProfileRun.training("model::forward", 1, "cpu"));
    let opSpan = "";
    {
      using measured = session.beginMeasurement("Model::forward");
      using matmul = session.beginSpan("matmul", "op");
      opSpan = matmul.id;
      // Busy-wait a little so the innermost span has a measurable duration.
      const until = process.hrtime.bigint() + 200_000n;
      while (process.hrtime.bigint() < until) {}
      expect(measured.elapsedNs()).toBeGreaterThan(0);
    }
    session.recordOp(opSpan, {
      opName: "matmul",
      shape: [8, 8],
      dtype: "f32",
      device: "cpu",
      durationNs: 10,
      timestampNs: 0,
    });
    session.finish();
    const { events } = checkTrace(session.sink.text());
    expect(events[0]?.kind).toBe("meta");
    const starts = eventsOfKind(events, "span_start");
    expect(starts.map((start) => [start.name, start.parent_id])).toEqual([
      ["model::forward", undefined],
      ["Model::forward", "s1"],
      ["matmul", "s2"],
    ]);
    const ends = eventsOfKind(events, "span_end");
    expect(ends.map((end) => end.id)).toEqual(["s3", "s2", "s1"]);
    expect(Number(ends[0]?.duration_ns)).toBeGreaterThan(0);
    expect(eventsOfKind(events, "op")[0]?.storage_bytes).toBe(256);
    expect(eventsOfKind(events, "memory")).toHaveLength(0);
  });

  it("the measured-region sync flag reaches meta without changing the timing mode", () => {
    const run = ProfileRun.training("train::update", 2, "cuda:0").measuredRegionDeviceSynchronized();
    const session = TraceSession.inMemory(run);
    session.finish();
    const meta = checkTrace(session.sink.text()).events[0];
    expect(meta).toMatchObject({
      kind: "meta",
      measured_region_device_synchronized: true,
      timing_mode: "host",
      capture_step: 2,
      warmup_steps: 1,
    });
  });

  it("a recorded gradient round-trips", () => {
    const session = TraceSession.inMemory(ProfileRun.training("train::update", 1, "cpu"));
    session.recordGradient("vb", "encoder.weight", "present", 0.42);
    session.finish();
    const gradients = eventsOfKind(checkTrace(session.sink.text()).events, "gradient");
    expect(gradients).toEqual([
      {
        kind: "gradient",
        event_id: "gradient-1",
        root: "vb",
        key: "encoder.weight",
        state: "present",
        norm: 0.42,
      },
    ]);
  });
});
