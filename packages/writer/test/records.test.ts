import { ProfileRun, TraceSession, WriterInputError } from "@cg/writer";
import { describe, expect, it } from "vitest";
import { checkTrace, eventsOfKind, scriptedClock } from "./support.js";

const run = ProfileRun.training("train::update", 1, "cuda:0");
const U64_MAX = 18446744073709551615n;

function fresh(readings: number[] = [500]) {
  return TraceSession.inMemory(run, { clock: scriptedClock(readings) });
}

function lastLine(session: ReturnType<typeof fresh>): string {
  return session.sink.lines().at(-1) ?? "";
}

describe("recordOp", () => {
  it("writes every key in reference order, resolves storage bytes and defaults the timestamp to now", () => {
    const session = fresh([777]);
    session.recordOp("s1", { opName: "relu", dtype: "F32", device: "cpu", durationNs: 10 });
    expect(lastLine(session)).toBe(
      '{"kind":"op","span_id":"s1","op_name":"relu","inputs":[],"shape":[],"dtype":"F32","device":"cpu","duration_ns":10,"timestamp_ns":777,"storage_bytes":4,"input_storage_bytes":0}',
    );
  });

  it("permits an explicit timestamp 0, or treats 0 as now in reference mode", () => {
    const session = fresh([9]);
    session.recordOp("s1", { opName: "a", dtype: "f32", device: "cpu", durationNs: 1, timestampNs: 0 });
    expect(lastLine(session)).toContain('"timestamp_ns":0,');
    const reference = TraceSession.inMemory(run, {
      clock: scriptedClock([9]),
      zeroOpTimestampMeansNow: true,
    });
    reference.recordOp("s1", { opName: "a", dtype: "f32", device: "cpu", durationNs: 1, timestampNs: 0 });
    expect(reference.sink.lines().at(-1)).toContain('"timestamp_ns":9,');
  });

  it("keeps u64 values exact up to 2^64-1 and saturates derived storage", () => {
    const session = fresh();
    session.recordOp("s1", {
      opName: "big",
      shape: [4294967296, 4294967296, 2],
      dtype: "f64",
      device: "cpu",
      durationNs: U64_MAX,
      timestampNs: 9007199254740993n,
      inputStorageBytes: U64_MAX,
    });
    const line = lastLine(session);
    expect(line).toContain('"duration_ns":18446744073709551615,"timestamp_ns":9007199254740993,');
    expect(line).toContain(
      '"storage_bytes":18446744073709551615,"input_storage_bytes":18446744073709551615}',
    );
    session.recordOp("s1", {
      opName: "q",
      shape: [16],
      dtype: "f8e4m3",
      device: "cpu",
      durationNs: 1,
      storageBytes: 0n,
    });
    expect(lastLine(session)).toContain('"storage_bytes":0,');
  });

  it("rejects bad values with a message naming the field, before anything is written", () => {
    const session = fresh();
    const before = session.sink.text();
    const base = { opName: "x", dtype: "f32", device: "cpu", durationNs: 1 };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ durationNs: -1 }, /^durationNs must be an integer/],
      [{ durationNs: 1.5 }, /^durationNs must be an integer/],
      [{ durationNs: Number.NaN }, /^durationNs must be an integer/],
      [{ durationNs: 2 ** 53 }, /^durationNs must be an integer/],
      [{ timestampNs: -5n }, /^timestampNs must be/],
      [{ durationNs: U64_MAX + 1n }, /^durationNs must be/],
      [{ shape: [2, 2.5] }, /^shape\[1\] must be an integer/],
      [{ shape: "2x2" }, /^shape must be an array/],
      [{ inputs: ["a", 3] }, /^inputs\[1\] must be a string/],
      [{ opName: undefined }, /^opName must be a string/],
      [{ storageBytes: -1 }, /^storageBytes must be/],
      [{ inputStorageBytes: "8" }, /^inputStorageBytes must be/],
      [{ output: null }, /^output must be a string/],
    ];
    for (const [change, message] of cases) {
      let caught: unknown;
      try {
        session.recordOp("s1", { ...base, ...change } as never);
      } catch (error) {
        caught = error;
      }
      expect(
        WriterInputError.isInstance(caught),
        JSON.stringify(change, (_k, v) => String(v)),
      ).toBe(true);
      expect((caught as Error).message).toMatch(message);
    }
    expect(() => session.recordOp(7 as never, base)).toThrowError(/spanId must be a string or a span guard/);
    expect(session.sink.text()).toBe(before);
  });
});

describe("recordTensor", () => {
  it("always writes resolved storage bytes and the caller's category", () => {
    const session = fresh();
    session.recordTensor("s1", { tensorId: "q", shape: [16], dtype: "f8e4m3", device: "cuda:0" });
    expect(lastLine(session)).toBe(
      '{"kind":"tensor","span_id":"s1","tensor_id":"q","shape":[16],"dtype":"f8e4m3","device":"cuda:0","requires_grad":false,"storage_bytes":0,"category":"other"}',
    );
    session.recordTensor("s1", {
      tensorId: "w",
      shape: [4],
      dtype: "f32",
      device: "cpu",
      requiresGrad: true,
      storageBytes: 999,
      category: "parameter",
    });
    expect(lastLine(session)).toContain('"requires_grad":true,"storage_bytes":999,"category":"parameter"}');
    expect(() =>
      session.recordTensor("s1", {
        tensorId: "w",
        dtype: "f32",
        device: "cpu",
        category: "weights" as "other",
      }),
    ).toThrowError(/category must be one of/);
    expect(() =>
      session.recordTensor("s1", {
        tensorId: "w",
        dtype: "f32",
        device: "cpu",
        requiresGrad: 1 as unknown as boolean,
      }),
    ).toThrowError(/requiresGrad must be a boolean/);
  });
});

describe("memory records", () => {
  it("writes alloc and free with the given bytes; timestamp 0 is kept, absent is now", () => {
    const session = fresh([123]);
    session.recordMemoryAlloc("s1", { tensorId: "x", device: "cpu", bytes: 64, dtype: "u8", timestampNs: 0 });
    expect(lastLine(session)).toBe(
      '{"kind":"memory","timestamp_ns":0,"tensor_id":"x","span_id":"s1","device":"cpu","bytes":64,"action":"alloc","shape":[],"dtype":"u8","category":"other"}',
    );
    session.recordMemoryFree("s1", { tensorId: "x", device: "cpu", bytes: 64, dtype: "u8", opName: "drop" });
    expect(lastLine(session)).toBe(
      '{"kind":"memory","timestamp_ns":123,"tensor_id":"x","span_id":"s1","op_name":"drop","device":"cpu","bytes":64,"action":"free","shape":[],"dtype":"u8","category":"other"}',
    );
    expect(() =>
      session.recordMemoryFree("s1", { tensorId: "x", device: "cpu", bytes: -64, dtype: "u8" }),
    ).toThrowError(/^bytes must be/);
  });

  it("device memory writes reserved bytes only when given", () => {
    const session = fresh([42]);
    session.recordDeviceMemory("cuda:0", 100, 900);
    expect(lastLine(session)).toBe(
      '{"kind":"device_memory","timestamp_ns":42,"device":"cuda:0","used_bytes":100,"free_bytes":900}',
    );
    session.recordDeviceMemory("cuda:0", 100, 900, 5, 256);
    expect(lastLine(session)).toBe(
      '{"kind":"device_memory","timestamp_ns":5,"device":"cuda:0","used_bytes":100,"free_bytes":900,"reserved_bytes":256}',
    );
    expect(() => session.recordDeviceMemory("cuda:0", 1, Number.POSITIVE_INFINITY)).toThrowError(
      /^freeBytes must be/,
    );
  });
});

describe("recordGradient", () => {
  it("numbers gradients, writes canonical floats, and null for non-finite norms", () => {
    const session = fresh();
    session.recordGradient("vb", "a", "present", 3);
    session.recordGradient("vb", "b", "zero", 0);
    session.recordGradient("vb", "c", "non_finite", Number.NaN);
    session.recordGradient("vb", "d", "non_finite", Number.NEGATIVE_INFINITY);
    session.recordGradient("vb", "e", "missing");
    session.recordGradient("vb", "f", "present", 1e-7);
    expect(() => session.recordGradient("vb", "g", "bad" as "zero")).toThrowError(/state must be one of/);
    expect(() => session.recordGradient("vb", "g", "zero", "1" as unknown as number)).toThrowError(
      /norm must be a number/,
    );
    session.recordGradient("vb", "h", "present", -0);
    const lines = session.sink.lines().slice(2);
    expect(lines).toEqual([
      '{"kind":"gradient","event_id":"gradient-1","root":"vb","key":"a","state":"present","norm":3.0}',
      '{"kind":"gradient","event_id":"gradient-2","root":"vb","key":"b","state":"zero","norm":0.0}',
      '{"kind":"gradient","event_id":"gradient-3","root":"vb","key":"c","state":"non_finite","norm":null}',
      '{"kind":"gradient","event_id":"gradient-4","root":"vb","key":"d","state":"non_finite","norm":null}',
      '{"kind":"gradient","event_id":"gradient-5","root":"vb","key":"e","state":"missing"}',
      '{"kind":"gradient","event_id":"gradient-6","root":"vb","key":"f","state":"present","norm":1e-7}',
      '{"kind":"gradient","event_id":"gradient-7","root":"vb","key":"h","state":"present","norm":-0.0}',
    ]);
    session.finish();
    const gradients = eventsOfKind(checkTrace(session.sink.text()).events, "gradient");
    expect(gradients[2]?.norm).toBeUndefined();
  });
});

describe("meta", () => {
  it("writes tags in code-point order and escapes strings as the reference does", () => {
    const tagged = ProfileRun.training('a"b\n', 2, "cpu")
      .tag("9", "b")
      .tag("10", "a")
      .tag("～", "x")
      .tag("😀", "y");
    const session = TraceSession.inMemory(tagged, { runId: "r", timestamp: "t" });
    expect(session.sink.lines()[0]).toBe(
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"a\\"b\\n/update-2","entrypoint":"a\\"b\\n","phase":"train","timestamp":"t","capture_step":2,"warmup_steps":1,"device":"cpu","measured_region_device_synchronized":false,"timing_mode":"host","tags":{"10":"a","9":"b","～":"x","😀":"y"}}',
    );
  });

  it("rejects capture step 0 and other invalid provenance", () => {
    expect(() => TraceSession.inMemory(ProfileRun.training("e", 0, "cpu"))).toThrowError(
      "capture_step must be one-based and greater than zero",
    );
    expect(() => TraceSession.inMemory(ProfileRun.training("e", 1.5, "cpu"))).toThrowError(
      /capture_step must be an integer/,
    );
    expect(() => TraceSession.inMemory(ProfileRun.training("e", 1, "cpu").warmupSteps(-1))).toThrowError(
      /warmup_steps must be/,
    );
    expect(() =>
      TraceSession.inMemory(ProfileRun.training("e", 1, "cpu").tag("k", 1 as unknown as string)),
    ).toThrowError(/tags\.k must be a string/);
    expect(() =>
      TraceSession.inMemory(
        ProfileRun.from({ ...ProfileRun.training("e", 1, "cpu").fields(), phase: "Train" as "train" }),
      ),
    ).toThrowError(/phase must be one of/);
  });
});
