import { describe, expect, it } from "vitest";
import { ProfileRun } from "./profile-run.js";

describe("ProfileRun", () => {
  it("training uses the reference defaults", () => {
    const run = ProfileRun.training("train::update", 3, "cuda:0");
    expect(run.fields()).toEqual({
      entrypoint: "train::update",
      correlation_id: "train::update/update-3",
      phase: "train",
      capture_step: 3,
      warmup_steps: 2,
      device: "cuda:0",
      measured_region_device_synchronized: false,
      timing_mode: "host",
      tags: {},
    });
  });

  it("inference has the same defaults with phase infer", () => {
    const run = ProfileRun.inference("model::forward", 1, "cpu");
    expect(run.phase).toBe("infer");
    expect(run.warmup_steps).toBe(0);
    expect(run.correlation_id).toBe("model::forward/update-1");
  });

  it("warm-up never goes below zero and stays exact for bigint steps", () => {
    expect(ProfileRun.training("e", 0, "cpu").warmup_steps).toBe(0);
    expect(ProfileRun.training("e", 18446744073709551615n, "cpu").warmup_steps).toBe(18446744073709551614n);
    expect(ProfileRun.training("e", 9007199254740992n, "cpu").warmup_steps).toBe(9007199254740991);
  });

  it("measuredRegionDeviceSynchronized sets only the flag (reference test)", () => {
    const run = ProfileRun.training("train::update", 2, "cuda:0").measuredRegionDeviceSynchronized();
    expect(run.measured_region_device_synchronized).toBe(true);
    expect(run.timing_mode).toBe("host");
  });

  it("deviceSynchronized sets the timing mode and the flag", () => {
    const run = ProfileRun.training("e", 1, "cuda:0").deviceSynchronized();
    expect(run.timing_mode).toBe("device_synchronized");
    expect(run.measured_region_device_synchronized).toBe(true);
  });

  it("builders return new runs and leave the original untouched", () => {
    const base = ProfileRun.training("e", 1, "cpu");
    const tagged = base
      .tag("precision", "f32")
      .tag("precision", "bf16")
      .tag("batch", "8")
      .correlationId("c-1");
    expect(base.tags).toEqual({});
    expect(base.correlation_id).toBe("e/update-1");
    expect(tagged.tags).toEqual({ precision: "bf16", batch: "8" });
    expect(tagged.correlation_id).toBe("c-1");
    expect(Object.isFrozen(tagged)).toBe(true);
    expect(Object.isFrozen(tagged.tags)).toBe(true);
    expect(base.warmupSteps(7).warmup_steps).toBe(7);
  });

  it("a __proto__ tag is an ordinary key", () => {
    const run = ProfileRun.training("e", 1, "cpu").tag("__proto__", "x");
    expect(Object.keys(run.tags)).toEqual(["__proto__"]);
    expect(run.tags.__proto__).toBe("x");
  });
});
