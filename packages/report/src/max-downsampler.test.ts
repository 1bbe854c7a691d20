import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MaxDownsampler } from "./max-downsampler.js";

function downsample(values: readonly number[], limit: number): number[] {
  const sampler = new MaxDownsampler<number>(limit, (value) => value);
  for (const value of values) sampler.push(value);
  expect(sampler.count).toBe(values.length);
  return sampler.items();
}

describe("MaxDownsampler", () => {
  it("keeps first, last and the largest of every bucket", () => {
    const values = Array.from({ length: 1000 }, (_, index) => (index === 517 ? 10_000 : index % 7));
    const kept = downsample(values, 50);
    expect(kept.length).toBeLessThanOrEqual(50);
    expect(kept.length).toBeGreaterThanOrEqual(25);
    expect(kept[0]).toBe(values[0]);
    expect(kept[kept.length - 1]).toBe(values[999]);
    expect(kept).toContain(10_000);
  });

  it("returns short series unchanged", () => {
    expect(downsample([3, 1, 2], 10)).toEqual([3, 1, 2]);
    expect(downsample([], 10)).toEqual([]);
    expect(downsample([4], 10)).toEqual([4]);
  });

  it("keeps at most `limit` items, in order, with the first, the last and the maximum", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 3000 }),
        fc.integer({ min: 3, max: 200 }),
        (values, limit) => {
          // Items carry their index so order and identity can be checked.
          const sampler = new MaxDownsampler<number>(limit, (index) => values[index] as number);
          for (let index = 0; index < values.length; index++) sampler.push(index);
          const kept = sampler.items();
          if (values.length <= limit) {
            expect(kept).toEqual(values.map((_, index) => index));
            return;
          }
          expect(kept.length).toBeLessThanOrEqual(limit);
          expect(kept.length).toBeGreaterThanOrEqual(Math.floor(limit / 2));
          expect(kept[0]).toBe(0);
          expect(kept[kept.length - 1]).toBe(values.length - 1);
          for (let at = 1; at < kept.length; at++) expect(kept[at]).toBeGreaterThan(kept[at - 1] as number);
          const maximum = Math.max(...values); // spread-ok: at most 3,000 test values
          expect(kept.some((index) => values[index] === maximum)).toBe(true);
        },
      ),
    );
  });
});
