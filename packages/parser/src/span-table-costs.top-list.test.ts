import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TopList } from "./span-table-costs.js";

// Keys around 2^53, where a number and its bigint part ways.
const key = fc.oneof(
  fc.bigInt({ min: 0n, max: 50n }),
  fc.bigInt({ min: 2n ** 53n - 4n, max: 2n ** 53n + 4n }),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
);
/** A u64 as the reader gives it: a number up to 2^53 − 1, a bigint above. */
const asU64 = (value: bigint): number | bigint =>
  value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;

describe("TopList.admitsU64", () => {
  it("answers as admits of the value's bigint, before and after offers", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4 }),
        fc.array(key, { maxLength: 30 }),
        key,
        (limit, offered, probe) => {
          const list = new TopList<number>(limit);
          offered.forEach((offeredKey, index) => {
            expect(list.admitsU64(asU64(probe))).toBe(list.admits(probe));
            list.offer(offeredKey, `id${index}`, () => index);
          });
          expect(list.admitsU64(asU64(probe))).toBe(list.admits(probe));
        },
      ),
    );
  });

  it("entersU64 says whether offer would keep the entry, ties decided by id", () => {
    const id = fc.constantFrom("a", "m", "s1/op/2", "s1/op/10", "z");
    // Few distinct keys, so that ties with the last entry are common.
    const tiedKey = fc.oneof(fc.bigInt({ min: 0n, max: 3n }), fc.constantFrom(2n ** 53n, 2n ** 53n + 1n));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4 }),
        fc.array(fc.tuple(tiedKey, id), { maxLength: 20 }),
        tiedKey,
        id,
        (limit, offered, probe, probeId) => {
          const list = new TopList<string>(limit);
          offered.forEach(([offeredKey, offeredId], index) => {
            list.offer(offeredKey, `${offeredId}#${index}`, () => "old");
          });
          const replay = new TopList<string>(limit);
          offered.forEach(([offeredKey, offeredId], index) => {
            replay.offer(offeredKey, `${offeredId}#${index}`, () => "old");
          });
          replay.offer(probe, probeId, () => "probe");
          expect(list.entersU64(asU64(probe), probeId)).toBe(replay.values().includes("probe"));
        },
      ),
    );
  });

  it("turns away a number below the last of a full list", () => {
    const list = new TopList<string>(2);
    list.offer(10n, "a", () => "a");
    list.offer(20n, "b", () => "b");
    expect(list.admitsU64(9)).toBe(false);
    expect(list.admitsU64(10)).toBe(true);
    list.offer(15n, "c", () => "c");
    expect(list.admitsU64(14)).toBe(false);
    expect(list.values()).toEqual(["b", "c"]);
  });
});
