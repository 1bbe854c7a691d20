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
// Held events live in two arrays (grown by doubling), not as objects: each slot's numbers side by side
// in one typed array and its strings side by side in one array, only the fields the consumers read,
// numbers unboxed, repeated strings (device, span id, op name) shared. A slot is read back `capacity`
// events after it was written, long out of the core's caches: one column per field cost a cache miss
// per field (most of the window's time on a 1 GiB trace), side by side it is one or two. A
// held event stays in the window for `capacity` memory events, long enough for V8 to promote
// anything it owns to the old generation, so per-event objects here turned into old-generation
// garbage at the event rate and inflated the streaming summary's RSS. Tensor ids are held as the
// strings the reader made: rebuilding one from UTF-16 units at release (as `SlotIds` did) cost a new
// string per event, more than the promotion of the few that outlive a scavenge.
import { compareMemoryOrder, compareMemoryTies, grownCopy } from "@cg/memory";
import { compareU64, MEMORY_CATEGORIES, type MemoryEvent, type U64 } from "@cg/schema/core";

/** Receives events in analysis order. */
export type AnalysisSink = (event: MemoryEvent) => void;
/**
 * Receives events in analysis order as their values (`category`: index in MEMORY_CATEGORIES), as
 * `MemoryTimeline.pushValues` takes them: no event object is made.
 */
export interface AnalysisValuesSink {
  pushValues(
    timestamp: U64,
    tensorId: string,
    spanId: string,
    opName: string | undefined,
    device: string,
    bytes: U64,
    alloc: boolean,
    category: number,
  ): void;
}
/** Receives events in stable timestamp order. */
export type PairingSink = (device: string, tensorId: string, action: MemoryEvent["action"]) => void;

const NO_SHAPE: number[] = [];
const MAX_INTERNED = 4096;
const INITIAL_SLOTS = 1024;
/** Events of one timestamp collected before the analysis gets a part of them (a memory bound). */
const MIN_GROUP_LIMIT = 65_536;
/** Groups up to this size are sorted by insertion (no allocation); larger ones by Array.sort. */
const INSERTION_SORT_LIMIT = 32;
const ALLOC = 0;
const FREE = 1;
/** Per slot in `#numbers`: timestamp, bytes, arrival sequence, flags (category × 2 + action). */
const NUMBERS = 4;
const AT_TIME = 0;
const AT_BYTES = 1;
const AT_SEQUENCE = 2;
const AT_FLAGS = 3;
/** Per slot in `#refs`: tensor id, span id, op name, device. */
const REFS = 4;
const AT_TENSOR = 0;
const AT_SPAN = 1;
const AT_OP = 2;
const AT_DEVICE = 3;

export class MemoryReorderWindow {
  readonly #capacity: number;
  readonly #groupLimit: number;
  readonly #analysis: AnalysisSink | undefined;
  readonly #analysisValues: AnalysisValuesSink | undefined;
  readonly #pairing: PairingSink;
  readonly #strings = new Map<string, string>();
  // The device and op name of the last event, interned: runs of events repeat them, and an equal
  // string is found by one comparison instead of a hash lookup.
  #lastDevice = "";
  #lastOpName = "";
  // Slot storage; a slot's timestamp or bytes above 2^53 − 1 (a bigint) is kept in the side maps.
  /** Slots the storage below holds (doubled by `#grow`). */
  #slots: number;
  #numbers: Float64Array;
  #refs: (string | undefined)[];
  readonly #bigTimestamp = new Map<number, bigint>();
  readonly #bigBytes = new Map<number, bigint>();
  /** Slots released since they were first taken; `#unusedSlot` and above were never taken. */
  #freeSlots: Int32Array;
  #freeCount = 0;
  #unusedSlot = 0;
  /**
   * Min-heap of slots by (timestamp, sequence); while every event came in order (`#inOrder`), a
   * ring of `#size` slots from `#head` instead, already sorted: a queue, no sifting (writer output
   * is in order, and a sorted array is a valid heap to switch to at the first event out of order).
   */
  #heap: Int32Array;
  #size = 0;
  #inOrder = true;
  #head = 0;
  #nextSequence = 0;
  // Released events sharing one timestamp, not yet given to the analysis: their slots (held until
  // then) and tensor ids (made once, for the pairing). The arrays keep their length between groups
  // (`length = 0` would drop their storage, an allocation per event).
  readonly #groupSlots: number[] = [];
  readonly #groupTensorIds: string[] = [];
  #groupSize = 0;
  /** Positions of the group in analysis order (reused). */
  readonly #groupOrder: number[] = [];
  readonly #compareInGroupBound = (left: number, right: number): number => this.#compareInGroup(left, right);
  #lastReleased: U64 | undefined;
  // The last event given to the analysis (timestamp undefined before the first).
  #lastAnalysedTime: U64 | undefined;
  #lastAnalysedAlloc = false;
  #lastAnalysedTensorId = "";
  /** True while both consumers received everything in whole-document order. */
  exact = true;

  constructor(capacity: number, analysis: AnalysisSink | AnalysisValuesSink, pairing: PairingSink) {
    this.#capacity = Math.max(1, Math.floor(capacity));
    this.#groupLimit = Math.max(this.#capacity, MIN_GROUP_LIMIT);
    if (typeof analysis === "function") this.#analysis = analysis;
    else this.#analysisValues = analysis;
    this.#pairing = pairing;
    const slots = Math.min(this.#capacity + 1, INITIAL_SLOTS);
    this.#slots = slots;
    this.#numbers = new Float64Array(slots * NUMBERS);
    this.#refs = new Array<string | undefined>(slots * REFS).fill(undefined);
    this.#freeSlots = new Int32Array(slots);
    this.#heap = new Int32Array(slots);
  }

  /**
   * Doubles the slot storage; only called when every slot is in use. Slots in use are those in the
   * heap (at most capacity + 1) and those of the group (at most the group limit).
   */
  #grow(): void {
    const old = this.#slots;
    const slots = old * 2;
    this.#slots = slots;
    this.#numbers = grownCopy(this.#numbers, slots * NUMBERS);
    this.#heap = this.#inOrder ? this.#linearHeap(slots) : grownCopy(this.#heap, slots);
    // Builtins fill the new slots: this runs a few times per read, never in optimized code, where a
    // loop over thousands of slots would run in the interpreter.
    this.#refs = this.#refs.concat(new Array<undefined>((slots - old) * REFS).fill(undefined));
    this.#freeSlots = grownCopy(this.#freeSlots, slots);
  }

  /** Number of events currently held back. */
  get held(): number {
    return this.#size + this.#groupSize;
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
    let slot: number;
    if (this.#freeCount > 0) {
      slot = this.#freeSlots[--this.#freeCount] as number;
    } else {
      if (this.#unusedSlot === this.#slots) this.#grow();
      slot = this.#unusedSlot++;
    }
    const numbers = this.#numbers;
    const at = slot * NUMBERS;
    if (typeof timestamp === "bigint") {
      this.#bigTimestamp.set(slot, timestamp);
      numbers[at + AT_TIME] = Number(timestamp);
    } else {
      numbers[at + AT_TIME] = timestamp;
    }
    if (typeof bytes === "bigint") this.#bigBytes.set(slot, bytes);
    else numbers[at + AT_BYTES] = bytes;
    numbers[at + AT_SEQUENCE] = this.#nextSequence++;
    numbers[at + AT_FLAGS] = category * 2 + (alloc ? ALLOC : FREE);
    if (opName !== undefined && opName !== this.#lastOpName) this.#lastOpName = this.#intern(opName);
    if (device !== this.#lastDevice) this.#lastDevice = this.#intern(device);
    const refs = this.#refs;
    const ref = slot * REFS;
    refs[ref + AT_TENSOR] = tensorId;
    refs[ref + AT_SPAN] = spanId;
    refs[ref + AT_OP] = opName === undefined ? undefined : this.#lastOpName;
    refs[ref + AT_DEVICE] = this.#lastDevice;

    if (this.#inOrder) {
      const heap = this.#heap;
      const length = heap.length;
      // The ring's ends by a wrap test, not `%` (an integer division per event).
      let tail = this.#head + this.#size;
      if (tail >= length) tail -= length;
      if (this.#size === 0 || !this.#before(slot, heap[tail === 0 ? length - 1 : tail - 1] as number)) {
        heap[tail] = slot;
        this.#size++;
      } else {
        this.#heap = this.#linearHeap(length);
        this.#inOrder = false;
        this.#siftUp(slot);
      }
    } else {
      this.#siftUp(slot);
    }
    if (this.#size > this.#capacity) this.#release(this.#pop());
  }

  /** Adds a slot to the heap. */
  #siftUp(slot: number): void {
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
  }

  /** The ring's slots in order from index 0 of a new array of `length` (a valid heap: sorted). */
  #linearHeap(length: number): Int32Array {
    const ring = this.#heap;
    const linear = new Int32Array(length);
    // The ring's two runs (from the head to the end, then from the start), copied by the builtin.
    const head = this.#head;
    const first = Math.min(this.#size, ring.length - head);
    linear.set(ring.subarray(head, head + first), 0);
    linear.set(ring.subarray(0, this.#size - first), first);
    this.#head = 0;
    return linear;
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
    // The side map is nearly always empty: no hash lookup per event then.
    const time = this.#numbers[slot * NUMBERS + AT_TIME] as number;
    if (this.#bigTimestamp.size === 0) return time;
    return this.#bigTimestamp.get(slot) ?? time;
  }

  /** Slot `left` comes before slot `right`: earlier timestamp, or the same and arrived first. */
  #before(left: number, right: number): boolean {
    const numbers = this.#numbers;
    const a = numbers[left * NUMBERS + AT_TIME] as number;
    const b = numbers[right * NUMBERS + AT_TIME] as number;
    // Rounding to doubles is monotonic, so different doubles already give the order; equal ones
    // at or above 2^53 may still be different bigints.
    if (a !== b) return a < b;
    if (a >= 2 ** 53) {
      const order = compareU64(this.#timeOf(left), this.#timeOf(right));
      if (order !== 0) return order < 0;
    }
    return this.#sequenceOf(left) < this.#sequenceOf(right);
  }

  #sequenceOf(slot: number): number {
    return this.#numbers[slot * NUMBERS + AT_SEQUENCE] as number;
  }

  #isAlloc(slot: number): boolean {
    return ((this.#numbers[slot * NUMBERS + AT_FLAGS] as number) & 1) === ALLOC;
  }

  #pop(): number {
    const heap = this.#heap;
    if (this.#inOrder) {
      const first = heap[this.#head] as number;
      const next = this.#head + 1;
      this.#head = next === heap.length ? 0 : next;
      this.#size--;
      return first;
    }
    const top = heap[0] as number;
    const length = --this.#size;
    if (length === 0) {
      // Empty: the next events may be in order again.
      this.#inOrder = true;
      this.#head = 0;
      return top;
    }
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

  /** Hands a slot's event to the pairing, and to the analysis with the rest of its timestamp's group. */
  #release(slot: number): void {
    const timestamp = this.#timeOf(slot);
    const tensorId = this.#refs[slot * REFS + AT_TENSOR] as string;
    const last = this.#lastReleased;
    const order = last === undefined ? 1 : compareU64(timestamp, last);
    if (order < 0) this.exact = false;
    this.#lastReleased = timestamp;
    this.#pairing(
      this.#refs[slot * REFS + AT_DEVICE] as string,
      tensorId,
      this.#isAlloc(slot) ? "alloc" : "free",
    );
    // A run of more equal timestamps than the group limit is analysed in parts; a later part that
    // should have come first clears `exact` in #flushGroup.
    if (order !== 0 || this.#groupSize >= this.#groupLimit) this.#flushGroup();
    this.#groupSlots[this.#groupSize] = slot;
    this.#groupTensorIds[this.#groupSize] = tensorId;
    this.#groupSize++;
  }

  /** Analysis order within a timestamp (spec §11: alloc before free, tensor id), then arrival. */
  #compareInGroup(left: number, right: number): number {
    const slots = this.#groupSlots;
    const leftSlot = slots[left] as number;
    const rightSlot = slots[right] as number;
    return (
      compareMemoryTies(
        this.#isAlloc(leftSlot),
        this.#groupTensorIds[left] as string,
        this.#isAlloc(rightSlot),
        this.#groupTensorIds[right] as string,
      ) || this.#sequenceOf(leftSlot) - this.#sequenceOf(rightSlot)
    );
  }

  /**
   * Sorts a small group's positions in place: Array.prototype.sort allocates scratch space on
   * every call, and most groups (events sharing a timestamp) are a handful of events.
   */
  #insertionSort(order: number[], count: number): void {
    for (let at = 1; at < count; at++) {
      const position = order[at] as number;
      let before = at - 1;
      while (before >= 0 && this.#compareInGroup(order[before] as number, position) > 0) {
        order[before + 1] = order[before] as number;
        before--;
      }
      order[before + 1] = position;
    }
  }

  #flushGroup(): void {
    const count = this.#groupSize;
    if (count === 0) return;
    if (count === 1) this.#analyse(0);
    else {
      const order = this.#groupOrder;
      order.length = count;
      for (let at = 0; at < count; at++) order[at] = at;
      if (count <= INSERTION_SORT_LIMIT) this.#insertionSort(order, count);
      else order.sort(this.#compareInGroupBound);
      for (let at = 0; at < count; at++) this.#analyse(order[at] as number);
    }
    this.#groupSize = 0;
  }

  /** Gives the group's event at `position` to the analysis and frees its slot. */
  #analyse(position: number): void {
    const slot = this.#groupSlots[position] as number;
    const tensorId = this.#groupTensorIds[position] as string;
    const timestamp = this.#timeOf(slot);
    const numbers = this.#numbers;
    const at = slot * NUMBERS;
    const flags = numbers[at + AT_FLAGS] as number;
    const alloc = (flags & 1) === ALLOC;
    // In analysis order unless an event came later than the window allows.
    const last = this.#lastAnalysedTime;
    if (
      last !== undefined &&
      compareMemoryOrder(
        timestamp,
        alloc,
        tensorId,
        last,
        this.#lastAnalysedAlloc,
        this.#lastAnalysedTensorId,
      ) < 0
    ) {
      this.exact = false;
    }
    this.#lastAnalysedTime = timestamp;
    this.#lastAnalysedAlloc = alloc;
    this.#lastAnalysedTensorId = tensorId;
    const bytes =
      this.#bigBytes.size === 0
        ? (numbers[at + AT_BYTES] as number)
        : (this.#bigBytes.get(slot) ?? (numbers[at + AT_BYTES] as number));
    const refs = this.#refs;
    const ref = slot * REFS;
    const spanId = refs[ref + AT_SPAN] as string;
    const device = refs[ref + AT_DEVICE] as string;
    const opName = refs[ref + AT_OP];
    const category = flags >> 1;
    if (this.#analysisValues !== undefined) {
      this.#analysisValues.pushValues(timestamp, tensorId, spanId, opName, device, bytes, alloc, category);
    } else {
      const event: MemoryEvent = {
        kind: "memory",
        timestamp_ns: timestamp,
        tensor_id: tensorId,
        span_id: spanId,
        device,
        bytes,
        action: alloc ? "alloc" : "free",
        shape: NO_SHAPE,
        dtype: "",
        category: MEMORY_CATEGORIES[category] as MemoryEvent["category"],
      };
      if (opName !== undefined) event.op_name = opName;
      (this.#analysis as AnalysisSink)(event);
    }
    refs[ref + AT_TENSOR] = undefined;
    refs[ref + AT_SPAN] = undefined;
    refs[ref + AT_OP] = undefined;
    refs[ref + AT_DEVICE] = undefined;
    if (this.#bigTimestamp.size > 0) this.#bigTimestamp.delete(slot);
    if (this.#bigBytes.size > 0) this.#bigBytes.delete(slot);
    this.#freeSlots[this.#freeCount++] = slot;
  }
}
