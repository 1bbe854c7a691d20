// The live allocations of a memory timeline: one slot each in parallel arrays, found by tensor id
// (and device, in improved mode) through maps of slot numbers, in the order they were added. An
// object per allocation held in a Map until its free became old-generation garbage at the
// allocation rate: a Map that is added to and deleted from all the time keeps deleted entries
// reachable from its old hash tables until the next full collection, so V8 promoted nearly every
// allocation of a streamed trace (about half of what a streaming summary promoted). Slots are
// reused at once and cleared when freed, so nothing here outlives its allocation.
import type { MemoryCategory, MemoryEvent, U64 } from "@cg/schema";
import type { PeakAllocation } from "./memory-analysis-types.js";

export class LiveAllocations {
  readonly #improved: boolean;
  /** Reference mode: tensor id -> slot. */
  readonly #byTensor = new Map<string, number>();
  /** Improved mode: device -> tensor id -> slot. */
  readonly #byDevice = new Map<string, Map<string, number>>();
  readonly #tensorId: string[] = [];
  readonly #device: string[] = [];
  readonly #bytes: U64[] = [];
  readonly #category: MemoryCategory[] = [];
  readonly #spanId: string[] = [];
  readonly #opName: (string | undefined)[] = [];
  readonly #timestamp: U64[] = [];
  /** Index of the event that made the allocation, to tell whether it was live at the peak. */
  readonly #sequence: number[] = [];
  readonly #freeSlots: number[] = [];

  constructor(improved: boolean) {
    this.#improved = improved;
  }

  /**
   * Adds the allocation of an `alloc` event. Returns the slot of the live allocation it replaces
   * (same tensor id, and device in improved mode), or -1; the caller reads and then releases it.
   */
  add(event: MemoryEvent, sequence: number): number {
    const slot = this.#freeSlots.pop() ?? this.#sequence.length;
    this.#tensorId[slot] = event.tensor_id;
    this.#device[slot] = event.device;
    this.#bytes[slot] = event.bytes;
    this.#category[slot] = event.category;
    this.#spanId[slot] = event.span_id;
    this.#opName[slot] = event.op_name;
    this.#timestamp[slot] = event.timestamp_ns;
    this.#sequence[slot] = sequence;
    const index = this.#index(event.device, true) as Map<string, number>;
    const replaced = index.get(event.tensor_id);
    // Setting a key that is there keeps its place in the order, as replacing the record did.
    index.set(event.tensor_id, slot);
    return replaced ?? -1;
  }

  /** Removes the live allocation of `tensorId` from the index; its slot, or -1. Release it after reading. */
  take(device: string, tensorId: string): number {
    const index = this.#index(device, false);
    const slot = index?.get(tensorId);
    if (slot === undefined) return -1;
    index?.delete(tensorId);
    return slot;
  }

  bytes(slot: number): U64 {
    return this.#bytes[slot] as U64;
  }

  category(slot: number): MemoryCategory {
    return this.#category[slot] as MemoryCategory;
  }

  sequence(slot: number): number {
    return this.#sequence[slot] as number;
  }

  /** The allocation as the peak breakdown lists it. */
  peakAllocation(slot: number): PeakAllocation {
    const allocation: PeakAllocation = {
      tensor_id: this.#tensorId[slot] as string,
      device: this.#device[slot] as string,
      bytes: this.#bytes[slot] as U64,
      category: this.#category[slot] as MemoryCategory,
      span_id: this.#spanId[slot] as string,
      timestamp_ns: this.#timestamp[slot] as U64,
    };
    const opName = this.#opName[slot];
    if (opName !== undefined) allocation.op_name = opName;
    return allocation;
  }

  /** Frees a slot that was replaced or taken, dropping what it refers to. */
  release(slot: number): void {
    this.#tensorId[slot] = "";
    this.#device[slot] = "";
    this.#bytes[slot] = 0;
    this.#spanId[slot] = "";
    this.#opName[slot] = undefined;
    this.#timestamp[slot] = 0;
    this.#freeSlots.push(slot);
  }

  /** Slots of the live allocations, in the order they were first added (per device in improved mode). */
  *slots(): Iterable<number> {
    if (!this.#improved) {
      yield* this.#byTensor.values();
      return;
    }
    for (const perDevice of this.#byDevice.values()) yield* perDevice.values();
  }

  #index(device: string, create: boolean): Map<string, number> | undefined {
    if (!this.#improved) return this.#byTensor;
    let perDevice = this.#byDevice.get(device);
    if (perDevice === undefined && create) {
      perDevice = new Map();
      this.#byDevice.set(device, perDevice);
    }
    return perDevice;
  }
}
