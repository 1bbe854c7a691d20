// The summary's device-memory part: capacity is used + free, saturating at 2^64 − 1 like the memory
// timeline, the largest seen per device, in the normal u64 representation.
import { type DeviceMemoryEvent, U64_MAX } from "@cg/trace";
import { describe, expect, it } from "vitest";
import { SummaryEvidence } from "./summary-view.js";

function sample(used: number | bigint, free: number | bigint, device = "cuda:0"): DeviceMemoryEvent {
  return { kind: "device_memory", timestamp_ns: 0, device, used_bytes: used, free_bytes: free };
}

describe("SummaryEvidence device memory", () => {
  it("keeps the largest capacity, as a number while it is a safe integer", () => {
    const evidence = new SummaryEvidence();
    evidence.add(sample(10, 20));
    evidence.add(sample(5, 40));
    evidence.add(sample(1, 2));
    const [view] = evidence.deviceMemory();
    expect(view).toMatchObject({ samples: 3, capacity_bytes: 45, max_used_bytes: 10, last_free_bytes: 2 });
  });

  it("saturates a capacity past 2^64 − 1 and keeps exact bigints past 2^53", () => {
    const evidence = new SummaryEvidence();
    evidence.add(sample(BigInt(Number.MAX_SAFE_INTEGER), 1));
    expect(evidence.deviceMemory()[0]?.capacity_bytes).toBe(BigInt(Number.MAX_SAFE_INTEGER) + 1n);
    evidence.add(sample(U64_MAX, U64_MAX - 3n));
    expect(evidence.deviceMemory()[0]?.capacity_bytes).toBe(U64_MAX);
    evidence.add(sample(U64_MAX, 7));
    expect(evidence.deviceMemory()[0]?.capacity_bytes).toBe(U64_MAX);
  });
});
