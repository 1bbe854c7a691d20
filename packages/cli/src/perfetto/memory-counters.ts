import { type MemoryCategory, saturateU64 } from "@cg/schema/core";
import type { MemoryRecord } from "./memory-event-sorter.js";

/** One counter sample: a counter track name and its new value. */
export interface CounterSample {
  name: string;
  timestamp: bigint;
  value: bigint;
}

interface DeviceState {
  live: bigint;
  byCategory: Map<MemoryCategory, bigint>;
}

function saturatingAdd(left: bigint, right: bigint): bigint {
  return saturateU64(left + right);
}

function saturatingSubtract(left: bigint, right: bigint): bigint {
  return saturateU64(left - right);
}

/** Counter track name of a device's live logical bytes, in total or for one category. */
export function memoryCounterName(device: string, category: MemoryCategory | "total"): string {
  return `memory ${device} ${category}`;
}

/**
 * Replays memory events in analysis order (spec §11: lifetimes keyed by tensor id, a free
 * subtracts the allocation's bytes from the free event's device and the allocation's category) and
 * reports the counters each event changes. State: one entry per live allocation and per device.
 */
export class MemoryCounters {
  readonly #devices = new Map<string, DeviceState>();
  readonly #live = new Map<string, { bytes: bigint; category: MemoryCategory }>();

  #device(name: string): DeviceState {
    let state = this.#devices.get(name);
    if (state === undefined) {
      state = { live: 0n, byCategory: new Map() };
      this.#devices.set(name, state);
    }
    return state;
  }

  /** Applies one event and returns the changed counters (device total first). */
  apply(record: MemoryRecord): CounterSample[] {
    const device = this.#device(record.device);
    let category: MemoryCategory | undefined;
    if (record.action === 0) {
      device.live = saturatingAdd(device.live, record.bytes);
      category = record.category;
      device.byCategory.set(category, saturatingAdd(device.byCategory.get(category) ?? 0n, record.bytes));
      this.#live.set(record.tensorId, { bytes: record.bytes, category });
    } else {
      const allocation = this.#live.get(record.tensorId);
      if (allocation !== undefined) {
        this.#live.delete(record.tensorId);
        device.live = saturatingSubtract(device.live, allocation.bytes);
        category = allocation.category;
        device.byCategory.set(
          category,
          saturatingSubtract(device.byCategory.get(category) ?? 0n, allocation.bytes),
        );
      } else {
        device.live = saturatingSubtract(device.live, record.bytes);
      }
    }
    const samples: CounterSample[] = [
      { name: memoryCounterName(record.device, "total"), timestamp: record.timestamp, value: device.live },
    ];
    if (category !== undefined) {
      samples.push({
        name: memoryCounterName(record.device, category),
        timestamp: record.timestamp,
        value: device.byCategory.get(category) ?? 0n,
      });
    }
    return samples;
  }
}
