import { MonotonicClock } from "@cg/clock";
import type { U64 } from "@cg/schema";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type CudaProbe,
  CudaProbeError,
  type DeviceMemorySample,
  type DeviceMemorySampler,
  openProbe,
} from "../src/index.js";
import { buildFakeNvml, FakeNvml, nvmlCode, removeFakeNvmlBuilds } from "./fake-nvml.js";

let fake: FakeNvml;
let libraryPath: string;
let probe: CudaProbe;
let clock: MonotonicClock;
const samplers: DeviceMemorySampler[] = [];

function start(options: Parameters<CudaProbe["startSampler"]>[0]): DeviceMemorySampler {
  const sampler = probe.startSampler(options);
  samplers.push(sampler);
  return sampler;
}

function busyWait(milliseconds: number): number {
  // Synchronous compute that never yields to the event loop.
  const end = performance.now() + milliseconds;
  let spins = 0;
  while (performance.now() < end) spins++;
  return spins;
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

beforeAll(() => {
  libraryPath = buildFakeNvml("full");
  fake = new FakeNvml(libraryPath);
});

beforeEach(() => {
  fake.reset();
  clock = new MonotonicClock();
  const result = openProbe({ libraryPath, clock });
  if (!result.ok) throw result.error;
  probe = result.probe;
});

afterEach(() => {
  for (const sampler of samplers.splice(0)) sampler.stop();
  probe.close();
});

afterAll(() => removeFakeNvmlBuilds());

describe("background sampler", () => {
  it("keeps sampling on its own thread while the main thread computes", async () => {
    const sampler = start({ intervalMs: 5 });
    await sampler.whenReady();
    expect(sampler.state).toBe("running");
    const begin = clock.now();
    busyWait(600);
    const samples = sampler.drain();
    const end = clock.now();
    const stats = sampler.stop();

    const perDevice = (index: number) => samples.filter((sample) => sample.index === index);
    const first = perDevice(0);
    const second = perDevice(1);
    // ~120 rounds are due in 600 ms; a loaded two-core machine may deliver far fewer, never none.
    expect(first.length).toBeGreaterThanOrEqual(30);
    expect(first.length).toBeLessThanOrEqual(200);
    expect(Math.abs(first.length - second.length)).toBeLessThanOrEqual(1);
    const timestamps = first.map((sample) => Number(sample.timestampNs));
    const gaps = timestamps.slice(1).map((value, at) => value - (timestamps[at] as number));
    const medianGapMs = median(gaps) / 1e6;
    expect(medianGapMs).toBeGreaterThan(2.5);
    expect(medianGapMs).toBeLessThan(30);
    // Readings taken during the busy loop exist, so the worker did not wait for the event loop.
    expect(timestamps.filter((value) => value > begin && value < end).length).toBeGreaterThanOrEqual(20);
    expect(stats.rounds).toBeGreaterThanOrEqual(first.length);
    expect(stats.minIntervalNs).toBeGreaterThan(0);
    expect(stats.maxIntervalNs).toBeGreaterThanOrEqual(stats.minIntervalNs ?? 0);
    expect(stats.errors).toBe(0);
  });

  it("stamps readings on the session's clock, monotonic per device, within the session's range", async () => {
    const sessionStart = clock.now();
    const sampler = start({ intervalMs: 2 });
    await sampler.whenReady();
    await sleep(60);
    const samples: DeviceMemorySample[] = [];
    samples.push(...sampler.drain());
    await sleep(40);
    const stats = sampler.stop();
    samples.push(...sampler.drain());
    const sessionEnd = clock.now();
    expect(samples.length).toBe(stats.samples);
    expect(sampler.stop()).toMatchObject({ samples: stats.samples, delivered: stats.samples, drops: 0 });
    for (const index of [0, 1]) {
      const timestamps = samples
        .filter((sample) => sample.index === index)
        .map((sample) => Number(sample.timestampNs));
      expect(timestamps.length).toBeGreaterThan(5);
      for (let at = 1; at < timestamps.length; at++) {
        expect(timestamps[at]).toBeGreaterThanOrEqual(timestamps[at - 1] as number);
      }
      expect(timestamps[0]).toBeGreaterThanOrEqual(sessionStart);
      expect(timestamps.at(-1)).toBeLessThanOrEqual(sessionEnd);
    }
    expect(samples[0]).toMatchObject({
      device: "cuda:0",
      usedBytes: 1 << 30,
      reservedBytes: 300 * (1 << 20),
    });
  });

  it("counts overflow exactly and keeps the newest readings", async () => {
    const sampler = start({ intervalMs: 1, capacity: 8, devices: [1] });
    await sampler.whenReady();
    await sleep(80);
    const stats = sampler.stop();
    const samples = sampler.drain();
    expect(stats.samples).toBeGreaterThan(8);
    expect(samples).toHaveLength(8);
    expect(stats.drops).toBe(stats.samples - 8);
    expect(samples.every((sample) => sample.device === "cuda:1")).toBe(true);
    const final = sampler.stop();
    expect(final.delivered + final.drops).toBe(final.samples);
  });

  it("keeps exact accounting while the owner drains a tiny ring the worker overruns", async () => {
    const sampler = start({ intervalMs: 0.05, capacity: 4, devices: [0] });
    await sampler.whenReady();
    const timestamps: number[] = [];
    const until = performance.now() + 200;
    while (performance.now() < until) {
      for (const sample of sampler.drain()) timestamps.push(Number(sample.timestampNs));
    }
    sampler.stop();
    for (const sample of sampler.drain()) timestamps.push(Number(sample.timestampNs));
    const stats = sampler.stop();
    expect(stats.delivered).toBe(timestamps.length);
    expect(stats.delivered + stats.drops).toBe(stats.samples);
    expect(stats.samples).toBeGreaterThan(50);
    // Never a reading twice, never one out of order (a torn or re-delivered slot would show here).
    for (let at = 1; at < timestamps.length; at++) {
      expect(timestamps[at]).toBeGreaterThan(timestamps[at - 1] as number);
    }
  });

  it("drains into a sink at span boundaries and at stop", async () => {
    const events: { device: string; used: U64; free: U64; timestamp: U64 | undefined }[] = [];
    const sink = {
      recordDeviceMemory(device: string, used: U64, free: U64, timestamp?: U64) {
        events.push({ device, used, free, timestamp });
      },
    };
    const sampler = start({ intervalMs: 2, devices: [0] });
    await sampler.whenReady();
    await sleep(30);
    const atBoundary = sampler.drainInto(sink);
    expect(atBoundary).toBe(events.length);
    await sleep(30);
    const stats = sampler.stop(sink);
    expect(events.length).toBe(stats.samples);
    expect(stats.delivered).toBe(stats.samples);
    expect(events[0]).toMatchObject({ device: "cuda:0", used: (1 << 30) + 300 * (1 << 20) });
    expect(sampler.state).toBe("stopped");
  });

  it("counts NVML errors mid-run and carries on", async () => {
    const sampler = start({ intervalMs: 2, devices: [0] });
    await sampler.whenReady();
    await sleep(20);
    fake.setResult("nvmlDeviceGetMemoryInfo_v2", nvmlCode.gpuIsLost);
    await sleep(30);
    const failedRoundsSeen = sampler.stop().errors;
    expect(failedRoundsSeen).toBeGreaterThan(0);
    expect(sampler.stop().lastErrorCode).toBe(15);
  });

  it("recovers after transient errors", async () => {
    fake.setResult("nvmlDeviceGetMemoryInfo_v2", nvmlCode.unknown);
    const sampler = start({ intervalMs: 2, devices: [0] });
    await sampler.whenReady();
    await sleep(20);
    const duringErrors = sampler.drain().length;
    fake.setResult("nvmlDeviceGetMemoryInfo_v2", 0);
    await sleep(30);
    const stats = sampler.stop();
    expect(duringErrors).toBe(0);
    expect(sampler.drain().length).toBeGreaterThan(0);
    expect(stats.errors).toBeGreaterThan(0);
  });

  it("reads this process's memory in the worker, or skips the query when asked", async () => {
    fake.setProcess(0, 0, process.pid, 123n);
    const withProcesses = start({ intervalMs: 2, devices: [0] });
    await withProcesses.whenReady();
    withProcesses.stop();
    expect(withProcesses.drain()[0]?.processUsedBytes).toBe(123);
    const callsBefore = fake.callCount("nvmlDeviceGetComputeRunningProcesses_v3");
    const without = start({ intervalMs: 2, devices: [0], processMemory: false });
    await without.whenReady();
    await sleep(20);
    without.stop();
    const samples = without.drain();
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.every((sample) => sample.processUsedBytes === undefined)).toBe(true);
    expect(fake.callCount("nvmlDeviceGetComputeRunningProcesses_v3")).toBe(callsBefore);
  });

  it("opens and shuts down its own NVML session", async () => {
    const sampler = start({ intervalMs: 5 });
    await sampler.whenReady();
    expect(fake.initRefcount()).toBe(2);
    // A ready sampler has taken its first round already.
    expect(sampler.drain().length).toBeGreaterThanOrEqual(2);
    sampler.stop();
    expect(fake.initRefcount()).toBe(1);
  });

  it("reports a worker that cannot open NVML as a typed failure, never a crash", async () => {
    fake.setResult("nvmlInit_v2", nvmlCode.driverNotLoaded);
    const sampler = start({ intervalMs: 5 });
    const failure = await sampler.whenReady().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(CudaProbeError.isInstance(failure)).toBe(true);
    expect((failure as CudaProbeError).reason).toBe("driver-not-loaded");
    expect(sampler.state).toBe("failed");
    expect(sampler.error?.reason).toBe("driver-not-loaded");
    expect(sampler.stop().samples).toBe(0);
  });

  it("stops cleanly before the worker has started", async () => {
    const sampler = start({ intervalMs: 1 });
    const stats = sampler.stop();
    expect(stats.samples).toBe(0);
    // The worker still shuts its NVML session down when it sees the stop request.
    for (let attempt = 0; attempt < 100 && fake.initRefcount() !== 1; attempt++) await sleep(20);
    expect(fake.initRefcount()).toBe(1);
  });

  it("reports the sampler thread's CPU share", async () => {
    const sampler = start({ intervalMs: 2 });
    await sampler.whenReady();
    await sleep(100);
    const stats = sampler.stop();
    expect(stats.workerWallNs).toBeGreaterThan(50e6);
    expect(stats.workerCpuNs).toBeGreaterThan(0);
    expect(stats.cpuShare).toBeGreaterThan(0);
    expect(stats.cpuShare).toBeLessThan(1.5);
  });

  it("rejects bad options at the call", () => {
    expect(() => probe.startSampler({ intervalMs: 0 })).toThrow(RangeError);
    expect(() => probe.startSampler({ intervalMs: Number.NaN })).toThrow(RangeError);
    expect(() => probe.startSampler({ intervalMs: 5, devices: [7] })).toThrow(RangeError);
    expect(() => probe.startSampler({ intervalMs: 5, capacity: 0 })).toThrow(RangeError);
  });
});
