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

  it("gives records that arrive in order back unchanged, in memory or spilled", () => {
    fc.assert(
      fc.property(
        fc.array(recordArbitrary, { maxLength: 300 }),
        fc.integer({ min: 1, max: 400 }),
        (specs, chunk) => {
          // In analysis order already, as a writer emits them: the sort and the merge are skipped.
          const ordered = specs
            .map((spec, sequence) => ({ ...spec, sequence }))
            .sort(compareMemoryRecords)
            .map((record, sequence) => ({ ...record, sequence }));
          const sorter = new MemoryEventSorter(chunk);
          for (const record of ordered) sorter.add(record);
          expect([...sorter.sorted()]).toEqual(ordered);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("merges runs that are each in order but overlap", () => {
    const record = (timestamp: bigint, sequence: number): MemoryRecord => ({
      timestamp,
      action: 0,
      tensorId: `t${sequence}`,
      device: "cuda:0",
      bytes: 8n,
      category: "activation",
      sequence,
    });
    // Two runs of three, each sorted, the second starting before the first ends.
    const records = [
      record(1n, 0),
      record(4n, 1),
      record(6n, 2),
      record(2n, 3),
      record(3n, 4),
      record(5n, 5),
    ];
    const sorter = new MemoryEventSorter(3);
    for (const each of records) sorter.add(each);
    expect([...sorter.sorted()].map((each) => each.timestamp)).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    expect(sorter.spilledRuns).toBe(2);
  });

  it("reads back spilled records longer than its read buffer and records split across reads", () => {
    // 40,000 units is 80,000 bytes, more than the 64 KiB a run is read with; the short ids
    // around them shift every later record across the buffer's boundaries.
    const ids = ["\uD800".repeat(40_000), "b".repeat(1_001), "\u{1F600}x", "a".repeat(70_000), "c"];
    const records: MemoryRecord[] = [];
    for (let sequence = 0; sequence < 200; sequence++) {
      records.push({
        timestamp: sequence % 7 === 0 ? 18_446_744_073_709_551_615n - BigInt(sequence) : BigInt(sequence),
        action: (sequence % 2) as 0 | 1,
        tensorId: `${ids[sequence % ids.length]}${sequence}`,
        device: sequence % 3 === 0 ? "cpu" : "cuda:1",
        bytes: sequence % 5 === 0 ? 18_446_744_073_709_551_615n : BigInt(sequence * 8),
        category: "parameter",
        sequence,
      });
    }
    const sorter = new MemoryEventSorter(16);
    for (const record of records) sorter.add(record);
    expect([...sorter.sorted()]).toEqual([...records].sort(compareMemoryRecords));
    expect(sorter.spilledRuns).toBe(13);
  });
});
