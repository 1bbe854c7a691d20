import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareMemoryRecords, MemoryEventSorter, type MemoryRecord } from "./memory-event-sorter.js";

const recordArbitrary = fc.record({
  timestamp: fc.oneof(
    fc.bigInt({ min: 0n, max: 20n }),
    fc.constantFrom(9_007_199_254_740_991n, 9_007_199_254_740_993n, 18_446_744_073_709_551_615n),
  ),
  action: fc.constantFrom(0 as const, 1 as const),
  // Ids around the surrogate range, where UTF-16 order and code-point order differ.
  tensorId: fc.string({
    unit: fc.constantFrom("a", "b", "\uE000", "\uFFFF", "\u{1F600}", "\u{10000}", "é"),
    maxLength: 4,
  }),
  device: fc.constantFrom("cpu", "cuda:0", "cuda:1"),
  bytes: fc.oneof(fc.bigInt({ min: 0n, max: 4096n }), fc.constant(18_446_744_073_709_551_615n)),
  category: fc.constantFrom("activation", "gradient", "optimizer", "other", "parameter" as const),
});

describe("MemoryEventSorter", () => {
  it("gives every record back in analysis order, in memory or spilled", () => {
    fc.assert(
      fc.property(
        fc.array(recordArbitrary, { maxLength: 300 }),
        fc.integer({ min: 1, max: 400 }),
        (specs, chunk) => {
          const records: MemoryRecord[] = specs.map((spec, sequence) => ({ ...spec, sequence }));
          const sorter = new MemoryEventSorter(chunk);
          for (const record of records) sorter.add(record);
          const sorted = [...sorter.sorted()];
          expect(sorted).toEqual([...records].sort(compareMemoryRecords));
          expect(sorter.spilledRuns > 0).toBe(records.length >= chunk);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps ids longer than one slice and grows its chunk", () => {
    const long = "x".repeat(10_000);
    const sorter = new MemoryEventSorter(100_000);
    for (let sequence = 0; sequence < 20_000; sequence++) {
      sorter.add({
        timestamp: BigInt(20_000 - sequence),
        action: 0,
        tensorId: sequence === 5 ? long : `t${sequence}`,
        device: "cpu",
        bytes: 1n,
        category: "other",
        sequence,
      });
    }
    const sorted = [...sorter.sorted()];
    expect(sorted).toHaveLength(20_000);
    expect(sorted[0]?.sequence).toBe(19_999);
    expect(sorted.find((record) => record.sequence === 5)?.tensorId).toBe(long);
    expect(sorter.spilledRuns).toBe(0);
  });
});
