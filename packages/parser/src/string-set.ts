// A set of strings for add/delete churn on a long-lived object (live allocations: each tensor is
// added at its alloc and deleted at its free). V8's Map and Set rebuild their hash table every few
// deletions, and once the collection has been promoted each new table is allocated straight in the
// old generation: about a hundred bytes of old-generation garbage per add/delete pair, which on a
// streaming read of millions of memory events kept a full GC cycle's worth of garbage resident.
// This open-addressing table cleans its tombstones by rehashing into a second, preallocated array,
// so steady churn allocates nothing.
import { hashString } from "@cg/schema/core";

const EMPTY = undefined;
const DELETED = null;
type Slot = string | typeof EMPTY | typeof DELETED;

export class StringSet {
  #slots: Slot[];
  #spare: Slot[];
  #mask: number;
  #size = 0;
  /** Live plus deleted slots. */
  #used = 0;

  constructor(initialCapacity = 16) {
    let capacity = 16;
    while (capacity < initialCapacity * 2) capacity *= 2;
    this.#slots = new Array<Slot>(capacity).fill(EMPTY);
    this.#spare = new Array<Slot>(capacity).fill(EMPTY);
    this.#mask = capacity - 1;
  }

  get size(): number {
    return this.#size;
  }

  has(value: string): boolean {
    return this.#find(value) >= 0;
  }

  /** Adds `value`; false when it was already present. */
  add(value: string): boolean {
    const slots = this.#slots;
    const mask = this.#mask;
    let index = hashString(value) & mask;
    let reusable = -1;
    while (true) {
      const slot = slots[index];
      if (slot === EMPTY) break;
      if (slot === DELETED) {
        if (reusable < 0) reusable = index;
      } else if (slot === value) {
        return false;
      }
      index = (index + 1) & mask;
    }
    this.#size++;
    if (reusable >= 0) {
      slots[reusable] = value;
      return true;
    }
    slots[index] = value;
    this.#used++;
    if (this.#used * 4 > (mask + 1) * 3) this.#rehash();
    return true;
  }

  /** Removes `value`; false when it was absent. */
  delete(value: string): boolean {
    const index = this.#find(value);
    if (index < 0) return false;
    this.#slots[index] = DELETED;
    this.#size--;
    return true;
  }

  #find(value: string): number {
    const slots = this.#slots;
    const mask = this.#mask;
    let index = hashString(value) & mask;
    while (true) {
      const slot = slots[index];
      if (slot === EMPTY) return -1;
      if (slot === value) return index;
      index = (index + 1) & mask;
    }
  }

  /** Drops tombstones into the spare array (growing both only when live entries need it). */
  #rehash(): void {
    let capacity = this.#mask + 1;
    if (this.#size * 2 > capacity) {
      capacity *= 2;
      this.#spare = new Array<Slot>(capacity).fill(EMPTY);
    } else {
      this.#spare.fill(EMPTY);
    }
    const target = this.#spare;
    const mask = capacity - 1;
    for (const slot of this.#slots) {
      if (typeof slot !== "string") continue;
      let index = hashString(slot) & mask;
      while (target[index] !== EMPTY) index = (index + 1) & mask;
      target[index] = slot;
    }
    const old = this.#slots;
    this.#slots = target;
    this.#spare = old.length === capacity ? old : new Array<Slot>(capacity).fill(EMPTY);
    this.#mask = mask;
    this.#used = this.#size;
  }
}
