import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type RingReading, SampleRing } from "../src/sample-ring.js";

function pushNumbered(ring: SampleRing, sequence: number): void {
  const value = BigInt(sequence);
  ring.push(
    value,
    sequence % 3,
    value * 10n,
    value * 20n,
    value * 30n,
    sequence % 2 === 0 ? value : undefined,
    undefined,
  );
}

describe("SampleRing", () => {
  it("round-trips every field exactly, unknowns as undefined", () => {
    const ring = SampleRing.create(4);
    const big = 0xffff_ffff_ffff_fff0n;
    ring.push(12n, 3, big, 1n, 2n, 0n, big + 1n);
    ring.push(13n, 0, 5n, 6n, 7n, undefined, undefined);
    const readings: RingReading[] = [];
    expect(ring.drain((reading) => readings.push(reading))).toBe(2);
    expect(readings).toEqual([
      {
        timestampNs: 12n,
        deviceIndex: 3,
        totalBytes: big,
        freeBytes: 1n,
        usedBytes: 2n,
        reservedBytes: 0n,
        processUsedBytes: big + 1n,
      },
      {
        timestampNs: 13n,
        deviceIndex: 0,
        totalBytes: 5n,
        freeBytes: 6n,
        usedBytes: 7n,
        reservedBytes: undefined,
        processUsedBytes: undefined,
      },
    ]);
  });

  it("drops the oldest readings when full and counts each drop", () => {
    const ring = SampleRing.create(4);
    for (let sequence = 0; sequence < 10; sequence++) pushNumbered(ring, sequence);
    const timestamps: bigint[] = [];
    ring.drain((reading) => timestamps.push(reading.timestampNs));
    expect(timestamps).toEqual([6n, 7n, 8n, 9n]);
    expect(ring.counters()).toMatchObject({ written: 10n, drops: 6n });
  });

  it("matches a drop-oldest queue model for any interleaving of pushes and drains", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.array(fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(0)), { maxLength: 60 }),
        (capacity, operations) => {
          const ring = SampleRing.create(capacity);
          const model: number[] = [];
          let sequence = 0;
          let modelDrops = 0;
          let delivered = 0;
          for (const pushes of operations) {
            if (pushes === 0) {
              const drained: number[] = [];
              delivered += ring.drain((reading) => drained.push(Number(reading.timestampNs)));
              expect(drained).toEqual(model.splice(0));
              continue;
            }
            for (let count = 0; count < pushes; count++) {
              pushNumbered(ring, sequence);
              model.push(sequence++);
              if (model.length > capacity) {
                model.shift();
                modelDrops++;
              }
            }
          }
          const counters = ring.counters();
          expect(counters.written).toBe(BigInt(sequence));
          expect(counters.drops).toBe(BigInt(modelDrops));
          delivered += ring.drain(() => {});
          expect(delivered + modelDrops).toBe(sequence);
        },
      ),
    );
  });

  it("tracks round intervals and errors", () => {
    const ring = SampleRing.create(2);
    expect(ring.counters()).toMatchObject({ rounds: 0n, minIntervalNs: undefined, maxIntervalNs: undefined });
    ring.recordRound(undefined);
    ring.recordRound(500n);
    ring.recordRound(300n);
    ring.recordRound(900n);
    ring.recordError(15);
    expect(ring.counters()).toMatchObject({
      rounds: 4n,
      minIntervalNs: 300n,
      maxIntervalNs: 900n,
      errors: 1n,
      lastErrorCode: 15,
    });
  });

  it("rejects bad capacities and foreign buffers", () => {
    expect(() => SampleRing.create(0)).toThrow(RangeError);
    expect(() => SampleRing.create(1.5)).toThrow(RangeError);
    expect(() => new SampleRing(new SharedArrayBuffer(8))).toThrow(RangeError);
  });
});
