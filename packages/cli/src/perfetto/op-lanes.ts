// Ops go on their own tracks, apart from spans, so they can never break span nesting. Each op lane
// keeps the hull [first start, last end] of its slices; an op goes on the first lane where it lies
// entirely before or after the hull, so slices on one lane never overlap. Lanes grow only with ops
// that genuinely overlap or arrive far out of time order.

interface OpLane {
  first: bigint;
  last: bigint;
}

export class OpLanes {
  readonly #lanes: OpLane[] = [];
  readonly #onNewLane: (lane: number) => void;

  constructor(onNewLane: (lane: number) => void) {
    this.#onNewLane = onNewLane;
  }

  get laneCount(): number {
    return this.#lanes.length;
  }

  place(start: bigint, end: bigint): number {
    for (let index = 0; index < this.#lanes.length; index += 1) {
      const lane = this.#lanes[index]!;
      if (start >= lane.last) {
        lane.last = end;
        return index;
      }
      if (end <= lane.first) {
        lane.first = start;
        return index;
      }
    }
    this.#lanes.push({ first: start, last: end });
    this.#onNewLane(this.#lanes.length - 1);
    return this.#lanes.length - 1;
  }
}
