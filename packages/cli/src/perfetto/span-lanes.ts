// Assigns spans to thread tracks ("lanes") so that the complete (`X`) events on every lane nest
// properly: on one lane any two slices are either disjoint or one contains the other. A child goes
// on its parent's lane when it starts inside the parent, after the parent's previous children, while
// the parent is the innermost open span there; otherwise (concurrent or badly ordered spans) it opens
// on another lane. A span whose closed interval would not contain what was already placed above it
// moves to a lane of its own. State is proportional to the open spans and the number of lanes.

interface LaneEntry {
  id: string;
  start: bigint;
  lane: number;
  /** Largest end of everything already emitted on this lane above this entry. */
  coverEnd: bigint;
}

interface Lane {
  stack: LaneEntry[];
  /** Largest end of anything emitted on this lane; new top-level spans start at or after it. */
  lastEnd: bigint;
}

export interface PlacedSpan {
  lane: number;
  start: bigint;
  end: bigint;
}

export class SpanLanes {
  readonly #lanes: Lane[] = [];
  readonly #open = new Map<string, LaneEntry>();
  /** Called the first time a lane is used, so its thread name can be written. */
  readonly #onNewLane: (lane: number) => void;

  constructor(onNewLane: (lane: number) => void) {
    this.#onNewLane = onNewLane;
  }

  get laneCount(): number {
    return this.#lanes.length;
  }

  /** Spans still open, in start order. */
  openSpanIds(): string[] {
    return [...this.#open.keys()];
  }

  start(id: string, parentId: string | undefined, start: bigint): void {
    const parent = parentId === undefined ? undefined : this.#open.get(parentId);
    let laneIndex: number | undefined;
    if (parent !== undefined) {
      const lane = this.#lanes[parent.lane]!;
      const onTop = lane.stack[lane.stack.length - 1] === parent;
      if (onTop && start >= parent.start && start >= parent.coverEnd) laneIndex = parent.lane;
    }
    laneIndex ??= this.#freeLane(start);
    const entry: LaneEntry = { id, start, lane: laneIndex, coverEnd: start };
    this.#lanes[laneIndex]!.stack.push(entry);
    this.#open.set(id, entry);
  }

  /** Closes a span; returns where to draw it, or undefined for an id that is not open. */
  end(id: string, duration: bigint): PlacedSpan | undefined {
    const entry = this.#open.get(id);
    if (entry === undefined) return undefined;
    this.#open.delete(id);
    const end = entry.start + duration;
    const lane = this.#lanes[entry.lane]!;
    const position = lane.stack.lastIndexOf(entry);
    const onTop = position === lane.stack.length - 1;
    lane.stack.splice(position, 1);
    const below = lane.stack[position - 1];
    if (onTop && end >= entry.coverEnd) {
      this.#recordEmitted(lane, below, end);
      return { lane: entry.lane, start: entry.start, end };
    }
    // What was placed above it stays where it is; the entry below now has to contain it.
    this.#recordEmitted(lane, below, entry.coverEnd);
    return { lane: this.#isolatedLane(entry.start, end), start: entry.start, end };
  }

  #recordEmitted(lane: Lane, below: LaneEntry | undefined, end: bigint): void {
    if (below !== undefined) {
      if (end > below.coverEnd) below.coverEnd = end;
    } else if (end > lane.lastEnd) {
      lane.lastEnd = end;
    }
  }

  /** A lane with nothing open whose slices all end at or before `start`. */
  #freeLane(start: bigint): number {
    const index = this.#lanes.findIndex((lane) => lane.stack.length === 0 && lane.lastEnd <= start);
    if (index >= 0) return index;
    this.#lanes.push({ stack: [], lastEnd: 0n });
    this.#onNewLane(this.#lanes.length - 1);
    return this.#lanes.length - 1;
  }

  #isolatedLane(start: bigint, end: bigint): number {
    const index = this.#freeLane(start);
    const lane = this.#lanes[index]!;
    if (end > lane.lastEnd) lane.lastEnd = end;
    return index;
  }
}
