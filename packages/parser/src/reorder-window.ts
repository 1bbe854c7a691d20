// One bounded reorder buffer for the memory events of a streaming summary. Both consumers need
// timestamp order, with different tie rules:
//  - health's allocation pairing: timestamp, then file order (a stable sort by timestamp);
//  - the memory analysis (spec §11): timestamp, alloc before free, tensor id, then file order.
// A binary min-heap keyed by (timestamp, arrival sequence) restores the first order and releases its
// smallest event once it holds more than `capacity`; released events of one timestamp are collected
// into a group that is sorted by the analysis tie rules when the next timestamp is released. So as
// long as no event arrives more than `capacity` memory events late, both consumers see exactly the
// order of a whole-document sort; anything later is detected and clears `exact`.
//
// Only the fields the consumers read are held (no shape, dtype or kind), with repeated strings
// (device, span id, op name) shared, so a full window of 65,536 events stays around 10 MB.
import { compareMemoryEvents } from "@cg/memory";
import { compareCodePoints, compareU64, type MemoryEvent, type U64 } from "@cg/schema";

/** The part of a memory event that pairing and the memory analysis read, plus its arrival order. */
export interface HeldMemoryEvent {
  readonly timestamp_ns: U64;
  readonly tensor_id: string;
  readonly span_id: string;
  readonly op_name: string | undefined;
  readonly device: string;
  readonly bytes: U64;
  readonly action: MemoryEvent["action"];
  readonly category: MemoryEvent["category"];
  readonly sequence: number;
}

/** Receives events in analysis order; `op_name` is absent (not `undefined`) when the event had none. */
export type AnalysisSink = (event: MemoryEvent) => void;
/** Receives events in stable timestamp order. */
export type PairingSink = (event: HeldMemoryEvent) => void;

const NO_SHAPE: number[] = [];
const MAX_INTERNED = 4096;

function compareTime(left: U64, right: U64): number {
  if (typeof left === "number" && typeof right === "number") return left - right;
  return compareU64(left, right);
}

function before(left: HeldMemoryEvent, right: HeldMemoryEvent): boolean {
  const order = compareTime(left.timestamp_ns, right.timestamp_ns);
  return order < 0 || (order === 0 && left.sequence < right.sequence);
}

function compareWithinTimestamp(left: HeldMemoryEvent, right: HeldMemoryEvent): number {
  if (left.action !== right.action) return left.action === "alloc" ? -1 : 1;
  if (left.tensor_id !== right.tensor_id) return compareCodePoints(left.tensor_id, right.tensor_id);
  return left.sequence - right.sequence;
}

export class MemoryReorderWindow {
  readonly #heap: HeldMemoryEvent[] = [];
  readonly #capacity: number;
  readonly #analysis: AnalysisSink;
  readonly #pairing: PairingSink;
  readonly #strings = new Map<string, string>();
  /** Released events sharing one timestamp, not yet given to the analysis. */
  #group: HeldMemoryEvent[] = [];
  #lastReleased: HeldMemoryEvent | undefined;
  #lastAnalysed: MemoryEvent | undefined;
  #sequence = 0;
  /** True while both consumers received everything in whole-document order. */
  exact = true;

  constructor(capacity: number, analysis: AnalysisSink, pairing: PairingSink) {
    this.#capacity = Math.max(1, Math.floor(capacity));
    this.#analysis = analysis;
    this.#pairing = pairing;
  }

  /** Number of events currently held back. */
  get held(): number {
    return this.#heap.length + this.#group.length;
  }

  push(event: MemoryEvent): void {
    const held: HeldMemoryEvent = {
      timestamp_ns: event.timestamp_ns,
      tensor_id: event.tensor_id,
      span_id: this.#intern(event.span_id),
      op_name: event.op_name === undefined ? undefined : this.#intern(event.op_name),
      device: this.#intern(event.device),
      bytes: event.bytes,
      action: event.action,
      category: event.category,
      sequence: this.#sequence++,
    };
    const heap = this.#heap;
    let index = heap.length;
    heap.push(held);
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = heap[parent] as HeldMemoryEvent;
      if (before(above, held)) break;
      heap[index] = above;
      index = parent;
    }
    heap[index] = held;
    if (heap.length > this.#capacity) this.#release(this.#pop());
  }

  /** Releases everything still held, in order. */
  drain(): void {
    while (this.#heap.length > 0) this.#release(this.#pop());
    this.#flushGroup();
  }

  #intern(value: string): string {
    const known = this.#strings.get(value);
    if (known !== undefined) return known;
    if (this.#strings.size < MAX_INTERNED) this.#strings.set(value, value);
    return value;
  }

  #pop(): HeldMemoryEvent {
    const heap = this.#heap;
    const top = heap[0] as HeldMemoryEvent;
    const last = heap.pop() as HeldMemoryEvent;
    const length = heap.length;
    if (length === 0) return top;
    let index = 0;
    while (true) {
      const left = index * 2 + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && before(heap[right] as HeldMemoryEvent, heap[left] as HeldMemoryEvent))
        child = right;
      const smaller = heap[child] as HeldMemoryEvent;
      if (!before(smaller, last)) break;
      heap[index] = smaller;
      index = child;
    }
    heap[index] = last;
    return top;
  }

  #release(event: HeldMemoryEvent): void {
    const last = this.#lastReleased;
    if (last !== undefined && compareTime(event.timestamp_ns, last.timestamp_ns) < 0) this.exact = false;
    this.#lastReleased = event;
    this.#pairing(event);
    const group = this.#group;
    const first = group[0];
    if (first !== undefined && compareTime(first.timestamp_ns, event.timestamp_ns) !== 0) this.#flushGroup();
    // A run of equal timestamps longer than the window is analysed in window-sized parts; a later
    // part that should have come first clears `exact` in #analyse.
    else if (group.length >= this.#capacity) this.#flushGroup();
    this.#group.push(event);
  }

  #flushGroup(): void {
    const group = this.#group;
    if (group.length === 0) return;
    this.#group = [];
    if (group.length > 1) group.sort(compareWithinTimestamp);
    for (const held of group) this.#analyse(held);
  }

  #analyse(held: HeldMemoryEvent): void {
    const event: MemoryEvent = {
      kind: "memory",
      timestamp_ns: held.timestamp_ns,
      tensor_id: held.tensor_id,
      span_id: held.span_id,
      device: held.device,
      bytes: held.bytes,
      action: held.action,
      shape: NO_SHAPE,
      dtype: "",
      category: held.category,
    };
    if (held.op_name !== undefined) event.op_name = held.op_name;
    const last = this.#lastAnalysed;
    if (last !== undefined && compareMemoryEvents(event, last) < 0) this.exact = false;
    this.#lastAnalysed = event;
    this.#analysis(event);
  }
}
