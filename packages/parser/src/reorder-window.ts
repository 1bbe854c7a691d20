// One bounded reorder buffer for the memory events of a streaming summary. Both consumers need
// timestamp order, with different tie rules:
//  - health's allocation pairing: timestamp, then file order (a stable sort by timestamp);
//  - the memory analysis (spec §11): timestamp, alloc before free, tensor id, then file order.
// A binary min-heap keyed by (timestamp, arrival sequence) restores the first order and releases its
// smallest event once it holds more than `capacity`; released events of one timestamp are collected
// into a group that is sorted by the analysis tie rules when the next timestamp is released. So as
// long as no event arrives after more than `capacity` memory events with a later timestamp (ties in any
// order are fine), both consumers see exactly the order of a whole-document sort; anything later is
// detected and clears `exact`. (A run of more than max(capacity, 65,536) events with one timestamp
// is analysed in parts to bound memory, and clears `exact` if the parts come out of order.)
//
// Held events live in parallel arrays (structure of arrays, grown by doubling), not as objects: only the
// fields the consumers read, numbers unboxed, repeated strings (device, span id, op name) shared. A
// held event stays in the window for `capacity` memory events, long enough for V8 to promote
// anything it owns to the old generation, so per-event objects here turned into old-generation
// garbage at the event rate and inflated the streaming summary's RSS. For the same reason tensor
// ids are held as UTF-16 units (`SlotIds`) and rebuilt as a string on release.
import { compareMemoryEvents, grownCopy, SlotIds } from "@cg/memory";
import { compareCodePoints, compareU64, MEMORY_CATEGORIES, type MemoryEvent, type U64 } from "@cg/schema";

/** Receives events in analysis order. */
export type AnalysisSink = (event: MemoryEvent) => void;
/** Receives events in stable timestamp order. */
export type PairingSink = (device: string, tensorId: string, action: MemoryEvent["action"]) => void;

interface Released {
  readonly event: MemoryEvent;
  readonly sequence: number;
}

const NO_SHAPE: number[] = [];
const MAX_INTERNED = 4096;
const INITIAL_SLOTS = 1024;
/** Events of one timestamp collected before the analysis gets a part of them (a memory bound). */
const MIN_GROUP_LIMIT = 65_536;
const ALLOC = 0;
const FREE = 1;

function compareWithinTimestamp(left: Released, right: Released): number {
  if (left.event.action !== right.event.action) return left.event.action === "alloc" ? -1 : 1;
  if (left.event.tensor_id !== right.event.tensor_id) {
    return compareCodePoints(left.event.tensor_id, right.event.tensor_id);
  }
  return left.sequence - right.sequence;
}

export class MemoryReorderWindow {
  readonly #capacity: number;
  readonly #groupLimit: number;
  readonly #analysis: AnalysisSink;
  readonly #pairing: PairingSink;
  readonly #strings = new Map<string, string>();
  // Slot storage; a slot's timestamp or bytes above 2^53 − 1 (a bigint) is kept in the side maps.
  #timestamp: Float64Array;
  #bytes: Float64Array;
  #sequence: Float64Array;
  #action: Uint8Array;
  #category: Uint8Array;
  readonly #tensorIds: SlotIds;
  #spanId: (string | undefined)[];
  #opName: (string | undefined)[];
  #device: (string | undefined)[];
  readonly #bigTimestamp = new Map<number, bigint>();
  readonly #bigBytes = new Map<number, bigint>();
  #freeSlots: Int32Array;
  #freeCount: number;
  /** Min-heap of slots by (timestamp, sequence). */
  #heap: Int32Array;
  #size = 0;
  #nextSequence = 0;
  /** Released events sharing one timestamp, not yet given to the analysis. */
  #group: Released[] = [];
  #lastReleased: U64 | undefined;
  #lastAnalysed: MemoryEvent | undefined;
  /** True while both consumers received everything in whole-document order. */
  exact = true;

  constructor(capacity: number, analysis: AnalysisSink, pairing: PairingSink) {
    this.#capacity = Math.max(1, Math.floor(capacity));
    this.#groupLimit = Math.max(this.#capacity, MIN_GROUP_LIMIT);
    this.#analysis = analysis;
    this.#pairing = pairing;
    const slots = Math.min(this.#capacity + 1, INITIAL_SLOTS);
    this.#timestamp = new Float64Array(slots);
    this.#bytes = new Float64Array(slots);
    this.#sequence = new Float64Array(slots);
    this.#action = new Uint8Array(slots);
    this.#category = new Uint8Array(slots);
    this.#tensorIds = new SlotIds(slots);
    this.#spanId = new Array(slots).fill(undefined);
    this.#opName = new Array(slots).fill(undefined);
    this.#device = new Array(slots).fill(undefined);
    this.#freeSlots = new Int32Array(slots);
    for (let slot = 0; slot < slots; slot++) this.#freeSlots[slot] = slots - 1 - slot;
    this.#freeCount = slots;
    this.#heap = new Int32Array(slots);
  }

  /** Doubles the slot storage (up to capacity + 1 slots); only called when every slot is in use. */
  #grow(): void {
    const old = this.#timestamp.length;
    const slots = Math.min(this.#capacity + 1, old * 2);
    this.#timestamp = grownCopy(this.#timestamp, slots);
    this.#bytes = grownCopy(this.#bytes, slots);
    this.#sequence = grownCopy(this.#sequence, slots);
    this.#action = grownCopy(this.#action, slots);
    this.#category = grownCopy(this.#category, slots);
    this.#heap = grownCopy(this.#heap, slots);
    this.#tensorIds.grow(slots);
    for (const strings of [this.#spanId, this.#opName, this.#device]) {
      for (let slot = old; slot < slots; slot++) strings.push(undefined);
    }
    this.#freeSlots = new Int32Array(slots);
    for (let slot = old; slot < slots; slot++) this.#freeSlots[slot - old] = slots - 1 - (slot - old);
    this.#freeCount = slots - old;
  }

  /** Number of events currently held back. */
  get held(): number {
    return this.#size + this.#group.length;
  }

  /**
   * Takes one memory event. `spanId` may pass an equal, already retained string for
   * `event.span_id` (e.g. the id of the span record), so the event's own copy is not kept.
   */
  push(event: MemoryEvent, spanId: string = event.span_id): void {
    this.pushValues(
      event.timestamp_ns,
      event.tensor_id,
      spanId === event.span_id ? this.#intern(spanId) : spanId,
      event.op_name,
      event.device,
      event.bytes,
      event.action === "alloc",
      MEMORY_CATEGORIES.indexOf(event.category),
    );
  }

  /**
   * `push` from a memory event's values (a column reader has no event object): `category` is the
   * index in MEMORY_CATEGORIES; `spanId` is kept as given.
   */
  pushValues(
    timestamp: U64,
    tensorId: string,
    spanId: string,
    opName: string | undefined,
    device: string,
    bytes: U64,
    alloc: boolean,
    category: number,
  ): void {
    if (this.#freeCount === 0) this.#grow();
    const slot = this.#freeSlots[--this.#freeCount] as number;
    if (typeof timestamp === "bigint") {
      this.#bigTimestamp.set(slot, timestamp);
      this.#timestamp[slot] = Number(timestamp);
    } else {
      this.#timestamp[slot] = timestamp;
    }
    if (typeof bytes === "bigint") this.#bigBytes.set(slot, bytes);
    else this.#bytes[slot] = bytes;
    this.#sequence[slot] = this.#nextSequence++;
    this.#action[slot] = alloc ? ALLOC : FREE;
    this.#category[slot] = category;
    this.#tensorIds.set(slot, tensorId);
    this.#spanId[slot] = spanId;
    this.#opName[slot] = opName === undefined ? undefined : this.#intern(opName);
    this.#device[slot] = this.#intern(device);

    const heap = this.#heap;
    let index = this.#size++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = heap[parent] as number;
      if (this.#before(above, slot)) break;
      heap[index] = above;
      index = parent;
    }
    heap[index] = slot;
    if (this.#size > this.#capacity) this.#release(this.#pop());
  }

  /** Releases everything still held, in order. */
  drain(): void {
    while (this.#size > 0) this.#release(this.#pop());
    this.#flushGroup();
  }

  #intern(value: string): string {
    const known = this.#strings.get(value);
    if (known !== undefined) return known;
    if (this.#strings.size < MAX_INTERNED) this.#strings.set(value, value);
    return value;
  }

  #timeOf(slot: number): U64 {
    return this.#bigTimestamp.get(slot) ?? (this.#timestamp[slot] as number);
  }

  /** Slot `left` comes before slot `right`: earlier timestamp, or the same and arrived first. */
  #before(left: number, right: number): boolean {
    const a = this.#timestamp[left] as number;
    const b = this.#timestamp[right] as number;
    // Rounding to doubles is monotonic, so different doubles already give the order; equal ones
    // at or above 2^53 may still be different bigints.
    if (a !== b) return a < b;
    if (a >= 2 ** 53) {
      const order = compareU64(this.#timeOf(left), this.#timeOf(right));
      if (order !== 0) return order < 0;
    }
    return (this.#sequence[left] as number) < (this.#sequence[right] as number);
  }

  #pop(): number {
    const heap = this.#heap;
    const top = heap[0] as number;
    const length = --this.#size;
    if (length === 0) return top;
    const last = heap[length] as number;
    let index = 0;
    while (true) {
      const left = index * 2 + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && this.#before(heap[right] as number, heap[left] as number)) child = right;
      const smaller = heap[child] as number;
      if (!this.#before(smaller, last)) break;
      heap[index] = smaller;
      index = child;
    }
    heap[index] = last;
    return top;
  }

  /** Turns a slot back into an event, frees the slot and hands the event on. */
  #release(slot: number): void {
    const timestamp = this.#timeOf(slot);
    const event: MemoryEvent = {
      kind: "memory",
      timestamp_ns: timestamp,
      tensor_id: this.#tensorIds.get(slot),
      span_id: this.#spanId[slot] as string,
      device: this.#device[slot] as string,
      bytes: this.#bigBytes.get(slot) ?? (this.#bytes[slot] as number),
      action: this.#action[slot] === ALLOC ? "alloc" : "free",
      shape: NO_SHAPE,
      dtype: "",
      category: MEMORY_CATEGORIES[this.#category[slot] as number] as MemoryEvent["category"],
    };
    const opName = this.#opName[slot];
    if (opName !== undefined) event.op_name = opName;
    const sequence = this.#sequence[slot] as number;
    this.#tensorIds.clear(slot);
    this.#spanId[slot] = undefined;
    this.#opName[slot] = undefined;
    this.#device[slot] = undefined;
    if (this.#bigTimestamp.size > 0) this.#bigTimestamp.delete(slot);
    if (this.#bigBytes.size > 0) this.#bigBytes.delete(slot);
    this.#freeSlots[this.#freeCount++] = slot;

    const last = this.#lastReleased;
    const order = last === undefined ? 1 : compareU64(timestamp, last);
    if (order < 0) this.exact = false;
    this.#lastReleased = timestamp;
    this.#pairing(event.device, event.tensor_id, event.action);
    // A run of more equal timestamps than the group limit is analysed in parts; a later part that
    // should have come first clears `exact` in #flushGroup.
    if (order !== 0 || this.#group.length >= this.#groupLimit) this.#flushGroup();
    this.#group.push({ event, sequence });
  }

  #flushGroup(): void {
    const group = this.#group;
    if (group.length === 0) return;
    this.#group = [];
    if (group.length > 1) group.sort(compareWithinTimestamp);
    for (const { event } of group) {
      const last = this.#lastAnalysed;
      if (last !== undefined && compareMemoryEvents(event, last) < 0) this.exact = false;
      this.#lastAnalysed = event;
      this.#analysis(event);
    }
  }
}
