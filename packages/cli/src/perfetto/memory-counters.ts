import { MemoryTimeline, type MemoryTimelinePoint } from "@cg/memory";
import { MEMORY_CATEGORIES, type MemoryCategory, normalizeU64 } from "@cg/schema/core";
import type { MemoryRecord } from "./memory-event-sorter.js";

/** One counter sample: a counter track name and its new value. */
export interface CounterSample {
  name: string;
  timestamp: bigint;
  value: bigint;
}

/** Counter track name of a device's live logical bytes, in total or for one category. */
export function memoryCounterName(device: string, category: MemoryCategory | "total"): string {
  return `memory ${device} ${category}`;
}

/**
 * Replays memory events in analysis order through `@cg/memory`'s timeline, the one implementation
 * of spec §11 (lifetimes keyed by tensor id, a free subtracts the allocation's bytes from the free
 * event's device and the allocation's category), and reports the counters each event changes: the
 * device's total, then the category an alloc names or whose bytes a free changed. State: the
 * timeline's live allocations and, per device, the last value of each category counter.
 */
export class MemoryCounters {
  readonly #timeline = new MemoryTimeline({
    onPoint: (point) => {
      this.#point = point;
    },
  });
  #point: MemoryTimelinePoint | undefined;
  readonly #categoryValues = new Map<string, Map<MemoryCategory, bigint>>();
  /**
   * Per device, its counter names (total, then MEMORY_CATEGORIES' order), made once: the same string
   * each time is what lets the converter's cache of quoted names find it without hashing a new one.
   */
  readonly #names = new Map<string, string[]>();

  /** Applies one event and returns the changed counters (device total first). */
  apply(record: MemoryRecord): CounterSample[] {
    const alloc = record.action === 0;
    this.#timeline.pushValues(
      normalizeU64(record.timestamp),
      record.tensorId,
      "",
      undefined,
      record.device,
      normalizeU64(record.bytes),
      alloc,
      MEMORY_CATEGORIES.indexOf(record.category),
    );
    const point = this.#point as MemoryTimelinePoint;
    let names = this.#names.get(record.device);
    if (names === undefined) {
      names = [
        memoryCounterName(record.device, "total"),
        ...MEMORY_CATEGORIES.map((category) => memoryCounterName(record.device, category)),
      ];
      this.#names.set(record.device, names);
    }
    const samples: CounterSample[] = [
      {
        name: names[0] as string,
        timestamp: record.timestamp,
        value: BigInt(point.live_bytes),
      },
    ];
    let values = this.#categoryValues.get(record.device);
    if (values === undefined) {
      values = new Map();
      this.#categoryValues.set(record.device, values);
    }
    for (let index = 0; index < MEMORY_CATEGORIES.length; index++) {
      const category = MEMORY_CATEGORIES[index] as MemoryCategory;
      const bytes = point.by_category[category];
      if (bytes === undefined) continue;
      const value = BigInt(bytes);
      // An alloc always reports its category (even of 0 bytes); a free the category it changed.
      if (values.get(category) === value && !(alloc && category === record.category)) continue;
      values.set(category, value);
      samples.push({ name: names[index + 1] as string, timestamp: record.timestamp, value });
    }
    return samples;
  }
}
