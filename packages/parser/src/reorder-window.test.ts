// The reorder window's storage paths that whole-trace tests reach only by chance: an in-order ring
// that has wrapped around when the first event out of order turns it into a heap, and slot storage
// that grows while events are held.
import { describe, expect, it } from "vitest";
import { MemoryReorderWindow } from "./reorder-window.js";

/** A window of `capacity` whose analysis order and pairing order are recorded as timestamps. */
function recordingWindow(capacity: number) {
  const analysed: number[] = [];
  const analysedIds: string[] = [];
  const paired: string[] = [];
  const window = new MemoryReorderWindow(
    capacity,
    {
      pushValues(timestamp, tensorId, _spanId, _opName, _device, _bytes, alloc) {
        analysed.push(Number(timestamp));
        analysedIds.push(`${alloc ? "+" : "-"}${tensorId}`);
      },
    },
    (_device, tensorId) => paired.push(tensorId),
  );
  const push = (timestamp: number, alloc = true) =>
    window.pushValues(timestamp, `t${timestamp}`, "s1", "op", "cuda:0", 8, alloc, 0);
  return { window, push, analysed, analysedIds, paired };
}

describe("MemoryReorderWindow", () => {
  it("keeps the order when the first late event arrives after the ring wrapped around", () => {
    // A small window's ring of held events runs across its end at some point of a run in order:
    // a late event after every run length from 6 to 30 meets it wrapped in several of them.
    for (let count = 6; count <= 30; count++) {
      const { window, push, analysed, paired } = recordingWindow(3);
      const timestamps = Array.from({ length: count }, (_, index) => (index + 1) * 10);
      for (const timestamp of timestamps) push(timestamp);
      const late = count * 10 - 15;
      push(late);
      window.drain();
      const expected = [...timestamps, late].sort((left, right) => left - right);
      expect(analysed).toEqual(expected);
      expect(paired).toEqual(expected.map((timestamp) => `t${timestamp}`));
      expect(window.exact).toBe(true);
    }
  });

  it("grows its slots while events are held, in order and out of order", () => {
    // More held events than the first slot allocation (1,024), some of them late.
    const { window, push, analysed } = recordingWindow(5000);
    const timestamps: number[] = [];
    for (let index = 0; index < 4000; index++) timestamps.push(index % 97 === 0 ? index - 50 : index);
    for (const timestamp of timestamps) push(timestamp);
    window.drain();
    expect(analysed).toEqual([...timestamps].sort((left, right) => left - right));
    expect(window.exact).toBe(true);
  });

  it("orders a same-timestamp group by alloc before free, then tensor id", () => {
    const { window, analysedIds, paired } = recordingWindow(64);
    const events: [string, boolean][] = [
      ["b", false],
      ["a", true],
      ["c", true],
      ["a", false],
      ["b", true],
    ];
    for (const [id, alloc] of events) window.pushValues(7, id, "s1", undefined, "cuda:0", 8, alloc, 0);
    window.drain();
    // Pairing sees file order; the analysis sees allocs (a, b, c), then frees (a, b).
    expect(paired).toEqual(["b", "a", "c", "a", "b"]);
    expect(analysedIds).toEqual(["+a", "+b", "+c", "-a", "-b"]);
  });
});
