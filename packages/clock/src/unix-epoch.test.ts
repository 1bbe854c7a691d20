import { describe, expect, it } from "vitest";
import { newRunId, unixEpochNs } from "./unix-epoch.js";

describe("unixEpochNs", () => {
  it("is close to Date.now() in nanoseconds", () => {
    const before = BigInt(Date.now()) * 1_000_000n;
    const value = unixEpochNs();
    const after = BigInt(Date.now() + 1) * 1_000_000n;
    // Calibration error is below 1 µs; allow 2 ms for clock granularity and scheduling.
    expect(value).toBeGreaterThanOrEqual(before - 2_000_000n);
    expect(value).toBeLessThanOrEqual(after + 2_000_000n);
  });

  it("never decreases and has sub-millisecond resolution", () => {
    let previous = unixEpochNs();
    let sawSubMillisecond = false;
    for (let index = 0; index < 10_000; index++) {
      const value = unixEpochNs();
      expect(value >= previous).toBe(true);
      if (value % 1_000_000n !== 0n) sawSubMillisecond = true;
      previous = value;
    }
    expect(sawSubMillisecond).toBe(true);
  });
});

describe("newRunId", () => {
  it("is run-<pid>-<unix ns>", () => {
    // The id carries the package's own clock, read between the two readings around the call. Not
    // Date.now(): the wall clock may be stepped after calibration, which unixEpochNs deliberately
    // does not follow (a 10 ms step made a Date.now() comparison fail on a loaded machine).
    const before = unixEpochNs();
    const id = newRunId();
    const after = unixEpochNs();
    const match = /^run-(\d+)-(\d+)$/.exec(id);
    expect(match).not.toBeNull();
    expect(Number(match?.[1])).toBe(process.pid);
    const ns = BigInt(match?.[2] ?? "0");
    expect(ns).toBeGreaterThanOrEqual(before);
    expect(ns).toBeLessThanOrEqual(after);
  });

  it("differs between consecutive calls", () => {
    expect(newRunId()).not.toBe(newRunId());
  });
});
