import { MonotonicClock } from "@cg/clock";
import type { U64 } from "@cg/schema";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type CudaProbe,
  CudaProbeError,
  type DeviceMemorySink,
  nvmlLibraryEnvironmentVariable,
  type OpenProbeResult,
  openProbe,
} from "../src/index.js";
import { buildFakeNvml, compileFakeNvml, FakeNvml, nvmlCode, removeFakeNvmlBuilds } from "./fake-nvml.js";

const GiB = 1n << 30n;
const MiB = 1n << 20n;

interface RecordedEvent {
  device: string;
  usedBytes: U64;
  freeBytes: U64;
  timestampNs: U64 | undefined;
  reservedBytes: U64 | undefined;
  argumentCount: number;
}

function recordingSink(): DeviceMemorySink & { events: RecordedEvent[] } {
  const events: RecordedEvent[] = [];
  return {
    events,
    recordDeviceMemory(...args: [string, U64, U64, U64?, U64?]) {
      const [device, usedBytes, freeBytes, timestampNs, reservedBytes] = args;
      events.push({ device, usedBytes, freeBytes, timestampNs, reservedBytes, argumentCount: args.length });
    },
  };
}

function expectProbe(result: OpenProbeResult): CudaProbe {
  if (!result.ok) throw result.error;
  return result.probe;
}

function expectUnavailable(result: OpenProbeResult): CudaProbeError {
  if (result.ok) {
    result.probe.close();
    throw new Error("expected the probe to be unavailable");
  }
  expect(result.reason).toBe(result.error.reason);
  expect(CudaProbeError.isInstance(result.error)).toBe(true);
  return result.error;
}

let fake: FakeNvml;
let libraryPath: string;
const opened: CudaProbe[] = [];

function open(options: Parameters<typeof openProbe>[0] = {}): CudaProbe {
  const probe = expectProbe(openProbe({ libraryPath, ...options }));
  opened.push(probe);
  return probe;
}

beforeAll(() => {
  libraryPath = buildFakeNvml("full");
  fake = new FakeNvml(libraryPath);
});

beforeEach(() => fake.reset());

afterEach(() => {
  for (const probe of opened.splice(0)) probe.close();
});

afterAll(() => removeFakeNvmlBuilds());

describe("openProbe with two devices", () => {
  it("describes each device through NVML", () => {
    const probe = open();
    expect(probe.libraryPath).toBe(libraryPath);
    expect(probe.devices).toEqual([
      {
        index: 0,
        label: "cuda:0",
        name: "Fake NVML GPU 0",
        uuid: "GPU-fa4e0000-0000-4000-8000-000000000000",
        totalBytes: Number(16n * GiB),
        memoryQuery: "v2",
      },
      {
        index: 1,
        label: "cuda:1",
        name: "Fake NVML GPU 1",
        uuid: "GPU-fa4e0000-0000-4000-8000-000000000001",
        totalBytes: Number(16n * GiB),
        memoryQuery: "v2",
      },
    ]);
    expect(fake.initRefcount()).toBe(1);
  });

  it("samples used, free, total and reserved exactly, on the given clock", () => {
    const clock = new MonotonicClock();
    fake.setMemory(1, {
      total: 80n * GiB,
      used: 12n * GiB + 5n,
      free: 80n * GiB - 12n * GiB - 5n - 512n * MiB,
      reserved: 512n * MiB,
    });
    const probe = open({ clock });
    const before = clock.now();
    const samples = probe.sample();
    const after = clock.now();
    expect(samples.map((sample) => sample.device)).toEqual(["cuda:0", "cuda:1"]);
    expect(samples[0]).toMatchObject({
      index: 0,
      totalBytes: Number(16n * GiB),
      usedBytes: Number(GiB),
      reservedBytes: Number(300n * MiB),
      freeBytes: Number(16n * GiB - GiB - 300n * MiB),
    });
    expect(samples[1]).toMatchObject({
      totalBytes: Number(80n * GiB),
      usedBytes: Number(12n * GiB + 5n),
      reservedBytes: Number(512n * MiB),
    });
    for (const sample of samples) {
      expect(sample.timestampNs).toBeGreaterThanOrEqual(before);
      expect(sample.timestampNs).toBeLessThanOrEqual(after);
    }
  });

  it("accepts the clock's origin instead of the clock", () => {
    const clock = new MonotonicClock();
    const probe = open({ clock: clock.origin });
    const before = clock.now();
    const [sample] = probe.sample();
    expect(sample?.timestampNs).toBeGreaterThanOrEqual(before);
    expect(sample?.timestampNs).toBeLessThanOrEqual(clock.now());
  });

  it("keeps byte counts beyond 2^53 exact as bigints", () => {
    const huge = (1n << 60n) + 7n;
    fake.setMemory(0, { total: huge, used: 1n << 55n, free: huge - (1n << 55n) - 3n, reserved: 3n });
    const probe = open();
    const [sample] = probe.sample();
    expect(sample?.totalBytes).toBe(huge);
    expect(sample?.usedBytes).toBe(1n << 55n);
    expect(sample?.freeBytes).toBe(huge - (1n << 55n) - 3n);
    expect(sample?.reservedBytes).toBe(3);
  });

  it("reports this process's memory from the running-processes query", () => {
    fake.setProcess(0, 0, process.pid + 1, 7n * GiB);
    fake.setProcess(0, 1, process.pid, 3n * GiB);
    fake.setProcess(0, 2, process.pid, 2n * MiB); // a second MIG instance of the same process
    const probe = open();
    const [first, second] = probe.sample();
    expect(first?.processUsedBytes).toBe(Number(3n * GiB + 2n * MiB));
    // The query works on device 1 and this process is not in its list: it holds nothing there.
    expect(second?.processUsedBytes).toBe(0);
    expect(fake.callCount("nvmlDeviceGetComputeRunningProcesses_v3")).toBeGreaterThan(0);
    expect(fake.callCount("nvmlDeviceGetComputeRunningProcesses_v2")).toBe(0);
  });

  it("skips the per-process query when asked (unknown, one NVML call per device)", () => {
    fake.setProcess(0, 0, process.pid, 5n);
    const probe = open({ processMemory: false });
    const before = fake.callCount("nvmlDeviceGetComputeRunningProcesses_v3");
    expect(probe.sample().map((sample) => sample.processUsedBytes)).toEqual([undefined, undefined]);
    expect(fake.callCount("nvmlDeviceGetComputeRunningProcesses_v3")).toBe(before);
  });

  it("grows the process buffer when NVML reports more processes than it holds", () => {
    for (let slot = 0; slot < 8; slot++)
      fake.setProcess(0, slot, slot === 7 ? process.pid : 100 + slot, 1000n + BigInt(slot));
    const probe = open();
    expect(probe.sample()[0]?.processUsedBytes).toBe(1007);
  });

  it("reports an unavailable per-process value (NVML_VALUE_NOT_AVAILABLE) as unknown", () => {
    fake.setProcess(0, 0, process.pid, 0xffff_ffff_ffff_ffffn);
    const probe = open();
    expect(probe.sample()[0]?.processUsedBytes).toBeUndefined();
  });
});

describe("recordInto", () => {
  it("writes one device_memory event per device, used = total − free, without reserved", () => {
    const probe = open();
    const sink = recordingSink();
    const before = probe.clock.now();
    expect(probe.recordInto(sink)).toBe(2);
    expect(sink.events.map(({ device }) => device)).toEqual(["cuda:0", "cuda:1"]);
    const first = sink.events[0];
    expect(first?.freeBytes).toBe(Number(16n * GiB - GiB - 300n * MiB));
    expect(first?.usedBytes).toBe(Number(GiB + 300n * MiB));
    expect(first?.timestampNs).toBeGreaterThanOrEqual(before);
    expect(first?.argumentCount).toBe(4);
    expect(first?.reservedBytes).toBeUndefined();
  });

  it("passes NVML's reserved bytes only when asked", () => {
    const probe = open();
    const sink = recordingSink();
    probe.recordInto(sink, { includeReserved: true });
    expect(sink.events[0]?.reservedBytes).toBe(Number(300n * MiB));
    expect(sink.events[0]?.argumentCount).toBe(5);
  });
});

describe("older drivers and unsupported metrics", () => {
  it("falls back to nvmlDeviceGetMemoryInfo when the v2 symbol is missing", () => {
    const variantPath = buildFakeNvml("no-memory-v2");
    const variant = new FakeNvml(variantPath);
    variant.reset();
    const probe = expectProbe(openProbe({ libraryPath: variantPath }));
    try {
      expect(probe.devices.map((device) => device.memoryQuery)).toEqual(["v1", "v1"]);
      const [sample] = probe.sample();
      expect(sample?.reservedBytes).toBeUndefined();
      // v1's used includes what v2 calls reserved.
      expect(sample?.usedBytes).toBe(Number(GiB + 300n * MiB));
      expect(sample?.freeBytes).toBe(Number(16n * GiB - GiB - 300n * MiB));
      const sink = recordingSink();
      probe.recordInto(sink);
      expect(sink.events[0]?.usedBytes).toBe(Number(GiB + 300n * MiB));
      expect(variant.callCount("nvmlDeviceGetMemoryInfo")).toBeGreaterThan(0);
    } finally {
      probe.close();
    }
  });

  it("falls back to v1 when v2 is exported but not supported", () => {
    fake.setResult("nvmlDeviceGetMemoryInfo_v2", nvmlCode.notSupported);
    const probe = open();
    expect(probe.devices[0]?.memoryQuery).toBe("v1");
    const callsBefore = fake.callCount("nvmlDeviceGetMemoryInfo_v2");
    const [sample] = probe.sample();
    expect(sample?.reservedBytes).toBeUndefined();
    expect(sample?.usedBytes).toBe(Number(GiB + 300n * MiB));
    // Not asked again once known unsupported.
    expect(fake.callCount("nvmlDeviceGetMemoryInfo_v2")).toBe(callsBefore);
  });

  it("reports an unsupported per-process query as unknown, never zero", () => {
    fake.setResult("nvmlDeviceGetComputeRunningProcesses_v3", nvmlCode.notSupported);
    const probe = open();
    const samples = probe.sample();
    expect(samples.map((sample) => sample.processUsedBytes)).toEqual([undefined, undefined]);
    expect(samples[0]?.usedBytes).toBe(Number(GiB));
  });

  it("reports a forbidden per-process query as unknown", () => {
    fake.setProcess(0, 0, process.pid, 5n);
    fake.setResult("nvmlDeviceGetComputeRunningProcesses_v3", nvmlCode.noPermission);
    const probe = open();
    expect(probe.sample()[0]?.processUsedBytes).toBeUndefined();
    fake.setResult("nvmlDeviceGetComputeRunningProcesses_v3", 0);
    expect(probe.sample()[0]?.processUsedBytes).toBe(5);
  });

  it("uses the _v2 running-processes query where _v3 is missing", () => {
    const variantPath = buildFakeNvml("no-processes-v3");
    const variant = new FakeNvml(variantPath);
    variant.reset();
    variant.setProcess(1, 0, process.pid, 42n);
    const probe = expectProbe(openProbe({ libraryPath: variantPath }));
    try {
      expect(probe.sample()[1]?.processUsedBytes).toBe(42);
      expect(variant.callCount("nvmlDeviceGetComputeRunningProcesses_v2")).toBeGreaterThan(0);
    } finally {
      probe.close();
    }
  });

  it("reports process memory as unknown where no running-processes query exists", () => {
    const variantPath = buildFakeNvml("no-processes");
    new FakeNvml(variantPath).reset();
    const probe = expectProbe(openProbe({ libraryPath: variantPath }));
    try {
      expect(probe.sample().map((sample) => sample.processUsedBytes)).toEqual([undefined, undefined]);
    } finally {
      probe.close();
    }
  });
});

describe("NVML errors after opening", () => {
  it("sample() throws a typed nvml-error carrying NVML's code and text", () => {
    const probe = open();
    fake.setResult("nvmlDeviceGetMemoryInfo_v2", nvmlCode.gpuIsLost);
    let thrown: unknown;
    try {
      probe.sample();
    } catch (error) {
      thrown = error;
    }
    expect(CudaProbeError.isInstance(thrown)).toBe(true);
    const error = thrown as CudaProbeError;
    expect(error.reason).toBe("nvml-error");
    expect(error.nvmlCode).toBe(15);
    expect(error.nvmlMessage).toBe("GPU is lost");
    expect(error.nvmlFunction).toBe("nvmlDeviceGetMemoryInfo_v2");
    expect(error.message).toContain("GPU is lost");
    // A lost GPU is not "unsupported": the v2 query stays in use and works again when NVML recovers.
    fake.setResult("nvmlDeviceGetMemoryInfo_v2", 0);
    expect(probe.sample()[0]?.reservedBytes).toBe(Number(300n * MiB));
  });

  it("recordInto skips a failing device, keeps the error and never throws", () => {
    const probe = open();
    const sink = recordingSink();
    fake.setResult("nvmlDeviceGetMemoryInfo_v2", nvmlCode.unknown);
    expect(probe.recordInto(sink)).toBe(0);
    expect(sink.events).toEqual([]);
    expect(probe.lastError?.reason).toBe("nvml-error");
    expect(probe.lastError?.nvmlCode).toBe(999);
    expect(probe.lastError?.nvmlMessage).toBe("Unknown Error");
    fake.setResult("nvmlDeviceGetMemoryInfo_v2", 0);
    expect(probe.recordInto(sink)).toBe(2);
  });
});

describe("unavailability", () => {
  it("library-not-found lists what it tried", () => {
    const missing = `${libraryPath}.missing`;
    const error = expectUnavailable(openProbe({ libraryPath: missing }));
    expect(error.reason).toBe("library-not-found");
    expect(error.attempts.map((attempt) => attempt.path)).toEqual([missing]);
    expect(error.message).toContain(missing);
  });

  it("honours the CG_NVML_LIBRARY override", () => {
    const previous = process.env[nvmlLibraryEnvironmentVariable];
    try {
      process.env[nvmlLibraryEnvironmentVariable] = libraryPath;
      const probe = expectProbe(openProbe());
      expect(probe.libraryPath).toBe(libraryPath);
      probe.close();
      process.env[nvmlLibraryEnvironmentVariable] = `${libraryPath}.absent`;
      expect(expectUnavailable(openProbe()).attempts.map((attempt) => attempt.path)).toEqual([
        `${libraryPath}.absent`,
      ]);
    } finally {
      if (previous === undefined) delete process.env[nvmlLibraryEnvironmentVariable];
      else process.env[nvmlLibraryEnvironmentVariable] = previous;
    }
  });

  it("symbol-missing names the symbol", () => {
    const variantPath = buildFakeNvml("no-count");
    const error = expectUnavailable(openProbe({ libraryPath: variantPath }));
    expect(error.reason).toBe("symbol-missing");
    expect(error.symbol).toBe("nvmlDeviceGetCount_v2");
    expect(error.libraryPath).toBe(variantPath);
  });

  it("no-device when NVML counts zero devices, and NVML is shut down again", () => {
    fake.setDeviceCount(0);
    expect(expectUnavailable(openProbe({ libraryPath })).reason).toBe("no-device");
    expect(fake.initRefcount()).toBe(0);
  });

  it("driver-not-loaded from nvmlInit_v2", () => {
    fake.setResult("nvmlInit_v2", nvmlCode.driverNotLoaded);
    const error = expectUnavailable(openProbe({ libraryPath }));
    expect(error.reason).toBe("driver-not-loaded");
    expect(error.nvmlCode).toBe(9);
    expect(error.nvmlMessage).toBe("Driver Not Loaded");
    expect(error.nvmlFunction).toBe("nvmlInit_v2");
  });

  it("permission-denied from nvmlInit_v2", () => {
    fake.setResult("nvmlInit_v2", nvmlCode.noPermission);
    const error = expectUnavailable(openProbe({ libraryPath }));
    expect(error.reason).toBe("permission-denied");
    expect(error.nvmlMessage).toBe("Insufficient Permissions");
  });

  it("nvml-error for any other failure while opening, with NVML's shutdown", () => {
    fake.setResult("nvmlDeviceGetUUID", nvmlCode.unknown);
    const error = expectUnavailable(openProbe({ libraryPath }));
    expect(error).toMatchObject({ reason: "nvml-error", nvmlCode: 999, nvmlFunction: "nvmlDeviceGetUUID" });
    expect(fake.initRefcount()).toBe(0);
  });
});

describe("devices this process may not use", () => {
  it("leaves out a device whose handle NVML refuses", () => {
    fake.setDeviceHidden(0, true);
    const probe = open();
    expect(probe.devices.map((device) => device.label)).toEqual(["cuda:1"]);
    expect(probe.sample().map((sample) => sample.device)).toEqual(["cuda:1"]);
  });

  it("permission-denied when NVML refuses every device", () => {
    fake.setDeviceHidden(0, true);
    fake.setDeviceHidden(1, true);
    const error = expectUnavailable(openProbe({ libraryPath }));
    expect(error).toMatchObject({
      reason: "permission-denied",
      nvmlCode: 4,
      nvmlFunction: "nvmlDeviceGetHandleByIndex_v2",
    });
    expect(fake.initRefcount()).toBe(0);
  });
});

describe("clock option", () => {
  it("accepts a clock-like object from another copy of @cg/clock by its origin", () => {
    const clock = new MonotonicClock();
    const foreign = { origin: clock.origin, now: () => clock.now() };
    const probe = open({ clock: foreign as unknown as MonotonicClock });
    const before = clock.now();
    const [sample] = probe.sample();
    expect(sample?.timestampNs).toBeGreaterThanOrEqual(before);
    expect(sample?.timestampNs).toBeLessThanOrEqual(clock.now());
  });
});

describe("test fixture", () => {
  it("fails with a clear message when the C compiler is missing", () => {
    expect(() => compileFakeNvml("full", `${libraryPath}.unused`, "/nonexistent/cc")).toThrow(
      /C compiler '\/nonexistent\/cc' was not found/,
    );
  });
});

describe("closing", () => {
  it("calls nvmlShutdown once and makes later use a typed error", () => {
    const probe = open();
    expect(fake.initRefcount()).toBe(1);
    probe.close();
    probe.close();
    expect(fake.initRefcount()).toBe(0);
    expect(fake.callCount("nvmlShutdown")).toBe(1);
    expect(probe.closed).toBe(true);
    for (const use of [
      () => probe.sample(),
      () => probe.recordInto(recordingSink()),
      () => probe.startSampler({ intervalMs: 1 }),
    ]) {
      let thrown: unknown;
      try {
        use();
      } catch (error) {
        thrown = error;
      }
      expect(CudaProbeError.isInstance(thrown) && thrown.reason).toBe("closed");
    }
  });

  it("two probes hold NVML independently (NVML counts inits)", () => {
    const first = open();
    const second = open();
    expect(fake.initRefcount()).toBe(2);
    first.close();
    expect(second.sample()).toHaveLength(2);
    second.close();
    expect(fake.initRefcount()).toBe(0);
  });
});
