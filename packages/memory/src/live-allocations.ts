// The live allocations of a memory timeline, held in typed slot columns and found through an
// open-addressing hash table of slot numbers, with their insertion order kept as linked lists of
// slots (one list, or one per device in improved mode), as a Map's order would be.
//
// Why no Map and no strings: a streamed trace allocates and frees all the time. A Map that is added
// to and deleted from all the time allocates new hash tables as deleted entries pile up and as it
// grows and shrinks, and an allocation's tensor id string, timestamp and bytes lived as long as the
// allocation. V8 promoted all of that to the old generation, where it became garbage at the event
// rate: most of what a streaming summary promoted, which made its heap grow before each full
// collection. Here tensor ids are mostly UTF-16 units in a typed column (slot-ids.ts) and
// compared there, numbers are unboxed, devices are small codes, and the table only grows.
import { hashString, MEMORY_CATEGORIES, type MemoryCategory, type U64 } from "@cg/schema/core";
import { grownCopy } from "./grown-copy.js";
import type { PeakAllocation } from "./memory-analysis-types.js";
import { SlotIds } from "./slot-ids.js";
import { U64Column } from "./u64-column.js";

const INITIAL_SLOTS = 64;
const NONE = -1;

export class LiveAllocations {
  readonly #improved: boolean;
  /** Device codes in the order each device first had an allocation; a code indexes `#devices`. */
  readonly #deviceCodes = new Map<string, number>();
  readonly #devices: string[] = [];
  #lastDevice: string | undefined;
  #lastDeviceCode = 0;

  // Slot columns.
  readonly #tensorIds = new SlotIds(INITIAL_SLOTS);
  #hash = new Uint32Array(INITIAL_SLOTS);
  #device = new Int32Array(INITIAL_SLOTS);
  readonly #bytes = new U64Column(INITIAL_SLOTS);
  readonly #timestamp = new U64Column(INITIAL_SLOTS);
  #sequence = new Float64Array(INITIAL_SLOTS);
  #category = new Uint8Array(INITIAL_SLOTS);
  readonly #spanId: (string | undefined)[] = [];
  readonly #opName: (string | undefined)[] = [];
  /** Insertion order: neighbours of each live slot in its list, and each list's ends. */
  #previous = new Int32Array(INITIAL_SLOTS);
  #next = new Int32Array(INITIAL_SLOTS);
  readonly #head: number[] = [];
  readonly #tail: number[] = [];
  /** Slots in use or handed back; `#freeSlots` holds the ones handed back. */
  #slotsMade = 0;
  #freeSlots = new Int32Array(INITIAL_SLOTS);
  #freeCount = 0;

  /** Linear-probing table of live slots (NONE = empty), at most half full. */
  #table = new Int32Array(2 * INITIAL_SLOTS).fill(NONE);
  #tableCount = 0;

  constructor(improved: boolean) {
    this.#improved = improved;
  }

  /**
   * Adds the allocation of an `alloc` event, given as its values (`category`: the index in
   * MEMORY_CATEGORIES). Returns the slot of the live allocation it replaces
   * (same tensor id, and device in improved mode), or -1; the caller reads and then releases it.
   * The new allocation takes the replaced one's place in the order, as setting a Map key that is
   * there does.
   */
  add(
    tensorId: string,
    deviceName: string,
    bytes: U64,
    timestamp: U64,
    category: number,
    spanId: string,
    opName: string | undefined,
    sequence: number,
  ): number {
    const slot = this.#newSlot();
    const device = this.#deviceCode(deviceName);
    const list = this.#improved ? device : 0;
    const hash = hashString(tensorId, list);
    this.#hash[slot] = hash;
    this.#device[slot] = device;
    this.#tensorIds.set(slot, tensorId);
    this.#bytes.set(slot, bytes);
    this.#timestamp.set(slot, timestamp);
    this.#sequence[slot] = sequence;
    this.#category[slot] = category;
    this.#spanId[slot] = spanId;
    this.#opName[slot] = opName;

    const position = this.#find(list, tensorId, hash);
    if (position === NONE) {
      this.#insert(slot, hash);
      this.#append(list, slot);
      return NONE;
    }
    const replaced = this.#table[position] as number;
    this.#table[position] = slot;
    this.#takePlace(list, replaced, slot);
    return replaced;
  }

  /** Removes the live allocation of `tensorId` from the index; its slot, or -1. Release it after reading. */
  take(device: string, tensorId: string): number {
    let list = 0;
    if (this.#improved) {
      const code = this.#deviceCodes.get(device);
      if (code === undefined) return NONE;
      list = code;
    }
    const position = this.#find(list, tensorId, hashString(tensorId, list));
    if (position === NONE) return NONE;
    const slot = this.#table[position] as number;
    this.#deleteAt(position);
    this.#unlink(list, slot);
    return slot;
  }

  bytes(slot: number): U64 {
    return this.#bytes.get(slot);
  }

  category(slot: number): MemoryCategory {
    return MEMORY_CATEGORIES[this.categoryCode(slot)] as MemoryCategory;
  }

  /** The allocation's category as its index in MEMORY_CATEGORIES (as `add` was given it). */
  categoryCode(slot: number): number {
    return this.#category[slot] as number;
  }

  sequence(slot: number): number {
    return this.#sequence[slot] as number;
  }

  /** The allocation as the peak breakdown lists it. */
  peakAllocation(slot: number): PeakAllocation {
    const allocation: PeakAllocation = {
      tensor_id: this.#tensorIds.get(slot),
      device: this.#devices[this.#device[slot] as number] as string,
      bytes: this.bytes(slot),
      category: this.category(slot),
      span_id: this.#spanId[slot] as string,
      timestamp_ns: this.#timestamp.get(slot),
    };
    const opName = this.#opName[slot];
    if (opName !== undefined) allocation.op_name = opName;
    return allocation;
  }

  /** Frees a slot that was replaced or taken (and read), dropping what it refers to. */
  release(slot: number): void {
    this.#tensorIds.clear(slot);
    this.#spanId[slot] = undefined;
    this.#opName[slot] = undefined;
    this.#freeSlots[this.#freeCount++] = slot;
  }

  /** Slots of the live allocations, in the order they were first added (per device in improved mode). */
  *slots(): Iterable<number> {
    for (const head of this.#head) {
      for (let slot = head; slot !== NONE; slot = this.#next[slot] as number) yield slot;
    }
  }

  #deviceCode(device: string): number {
    // Runs of events name one device: the last one's code is found by a comparison.
    if (device === this.#lastDevice) return this.#lastDeviceCode;
    let code = this.#deviceCodes.get(device);
    if (code === undefined) {
      code = this.#devices.length;
      this.#deviceCodes.set(device, code);
      this.#devices.push(device);
      if (this.#improved || code === 0) {
        this.#head.push(NONE);
        this.#tail.push(NONE);
      }
    }
    this.#lastDevice = device;
    this.#lastDeviceCode = code;
    return code;
  }

  /** Whether `slot` holds the key (list, tensorId). */
  #holds(slot: number, list: number, tensorId: string): boolean {
    return (
      (this.#improved ? (this.#device[slot] as number) : 0) === list && this.#tensorIds.equals(slot, tensorId)
    );
  }

  /** The table position of the live slot with this key, or NONE. */
  #find(list: number, tensorId: string, hash: number): number {
    const table = this.#table;
    const mask = table.length - 1;
    for (let position = hash & mask; ; position = (position + 1) & mask) {
      const slot = table[position] as number;
      if (slot === NONE) return NONE;
      if (this.#hash[slot] === hash && this.#holds(slot, list, tensorId)) return position;
    }
  }

  #insert(slot: number, hash: number): void {
    if (2 * (this.#tableCount + 1) > this.#table.length) this.#growTable();
    const table = this.#table;
    const mask = table.length - 1;
    let position = hash & mask;
    while (table[position] !== NONE) position = (position + 1) & mask;
    table[position] = slot;
    this.#tableCount++;
  }

  /** Empties a table position, moving later entries of its probe run back (no tombstones). */
  #deleteAt(emptied: number): void {
    const table = this.#table;
    const mask = table.length - 1;
    let hole = emptied;
    for (let position = (hole + 1) & mask; ; position = (position + 1) & mask) {
      const slot = table[position] as number;
      if (slot === NONE) break;
      const home = (this.#hash[slot] as number) & mask;
      // The entry may fill the hole unless its home lies cyclically in (hole, position].
      const homeAfterHole =
        hole <= position ? home > hole && home <= position : home > hole || home <= position;
      if (!homeAfterHole) {
        table[hole] = slot;
        hole = position;
      }
    }
    table[hole] = NONE;
    this.#tableCount--;
  }

  #growTable(): void {
    const old = this.#table;
    const table = new Int32Array(old.length * 2).fill(NONE);
    const mask = table.length - 1;
    for (const slot of old) {
      if (slot === NONE) continue;
      let position = (this.#hash[slot] as number) & mask;
      while (table[position] !== NONE) position = (position + 1) & mask;
      table[position] = slot;
    }
    this.#table = table;
  }

  #append(list: number, slot: number): void {
    const tail = this.#tail[list] as number;
    this.#previous[slot] = tail;
    this.#next[slot] = NONE;
    if (tail === NONE) this.#head[list] = slot;
    else this.#next[tail] = slot;
    this.#tail[list] = slot;
  }

  #unlink(list: number, slot: number): void {
    const previous = this.#previous[slot] as number;
    const next = this.#next[slot] as number;
    if (previous === NONE) this.#head[list] = next;
    else this.#next[previous] = next;
    if (next === NONE) this.#tail[list] = previous;
    else this.#previous[next] = previous;
  }

  /** Puts `slot` where `replaced` is in the order, and takes `replaced` out. */
  #takePlace(list: number, replaced: number, slot: number): void {
    const previous = this.#previous[replaced] as number;
    const next = this.#next[replaced] as number;
    this.#previous[slot] = previous;
    this.#next[slot] = next;
    if (previous === NONE) this.#head[list] = slot;
    else this.#next[previous] = slot;
    if (next === NONE) this.#tail[list] = slot;
    else this.#previous[next] = slot;
  }

  #newSlot(): number {
    if (this.#freeCount > 0) return this.#freeSlots[--this.#freeCount] as number;
    const slot = this.#slotsMade++;
    if (slot === this.#sequence.length) this.#growSlots(slot * 2);
    return slot;
  }

  #growSlots(slots: number): void {
    this.#tensorIds.grow(slots);
    this.#hash = grownCopy(this.#hash, slots);
    this.#device = grownCopy(this.#device, slots);
    this.#bytes.reserve(slots);
    this.#timestamp.reserve(slots);
    this.#sequence = grownCopy(this.#sequence, slots);
    this.#category = grownCopy(this.#category, slots);
    this.#previous = grownCopy(this.#previous, slots);
    this.#next = grownCopy(this.#next, slots);
    this.#freeSlots = grownCopy(this.#freeSlots, slots);
  }
}
