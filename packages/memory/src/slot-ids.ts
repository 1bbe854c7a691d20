// The ids (tensor ids) of numbered slots in columns of analysis state that live as long as what
// they describe. An id up to UNITS UTF-16 units is copied into a typed column, and a string is only
// made again when one is asked for: a slot that holds its id string for many events lets V8
// promote the string, which then becomes old-generation garbage at the event rate. Longer ids (rare)
// are kept as strings.
import { grownCopy } from "./grown-copy.js";

/** Ids up to this many UTF-16 units are held as units. */
const UNITS = 24;
/** `#length` of a slot whose id is a string in `#long`. */
const LONG = -1;
/** Argument lists for String.fromCharCode, one per length up to UNITS. */
const SCRATCH: number[][] = Array.from({ length: UNITS + 1 }, (_, length) =>
  new Array<number>(length).fill(0),
);

/**
 * The ids of numbered slots, mostly off the JS heap.
 * Used by `@cg/parser`'s memory reorder window as well as here.
 */
export class SlotIds {
  #units: Uint16Array;
  #length: Int32Array;
  readonly #long: (string | undefined)[] = [];

  constructor(slots: number) {
    this.#units = new Uint16Array(slots * UNITS);
    this.#length = new Int32Array(slots);
  }

  /** Makes room for `slots` slots, keeping the ids held. */
  grow(slots: number): void {
    this.#units = grownCopy(this.#units, slots * UNITS);
    this.#length = grownCopy(this.#length, slots);
  }

  set(slot: number, id: string): void {
    if (id.length > UNITS) {
      this.#long[slot] = id;
      this.#length[slot] = LONG;
      return;
    }
    const units = this.#units;
    const base = slot * UNITS;
    for (let index = 0; index < id.length; index++) units[base + index] = id.charCodeAt(index);
    this.#length[slot] = id.length;
  }

  get(slot: number): string {
    const length = this.#length[slot] as number;
    if (length === LONG) return this.#long[slot] as string;
    const base = slot * UNITS;
    // At most UNITS arguments, copied into a reused list of that length: a `subarray` view would
    // be an object per call.
    const codes = SCRATCH[length] as number[];
    const units = this.#units;
    for (let index = 0; index < length; index++) codes[index] = units[base + index] as number;
    return String.fromCharCode.apply(null, codes);
  }

  /** Whether the slot's id is `id`, without making a string. */
  equals(slot: number, id: string): boolean {
    const length = this.#length[slot] as number;
    if (length === LONG) return this.#long[slot] === id;
    if (length !== id.length) return false;
    const units = this.#units;
    const base = slot * UNITS;
    for (let index = 0; index < length; index++) {
      if (units[base + index] !== id.charCodeAt(index)) return false;
    }
    return true;
  }

  /** Drops a long id's string once its slot is freed. */
  clear(slot: number): void {
    if (this.#length[slot] === LONG) this.#long[slot] = undefined;
  }
}
