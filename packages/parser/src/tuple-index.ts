// Dense row numbers for tuples of small integers (interned key fields): an operator row is found by
// its op name's and group fields' value ids through one open-addressing table of typed arrays,
// instead of a Map level per field and an object per row.

const FIRST_ROWS = 64;

export class TupleIndex {
  readonly #width: number;
  /** Row r's tuple at r * width. */
  #keys: Int32Array;
  /** Row + 1 of the tuple in each slot; 0 for a free slot. */
  #slots: Int32Array;
  #rows = 0;

  constructor(width: number) {
    this.#width = width;
    this.#keys = new Int32Array(FIRST_ROWS * width);
    this.#slots = new Int32Array(FIRST_ROWS * 2);
  }

  get size(): number {
    return this.#rows;
  }

  get byteLength(): number {
    return this.#keys.byteLength + this.#slots.byteLength;
  }

  /** Value `position` of row `row`'s tuple. */
  value(row: number, position: number): number {
    return this.#keys[row * this.#width + position] as number;
  }

  /** The row of the tuple (the first `width` values of `tuple`); a new tuple gets the next row. */
  intern(tuple: Int32Array): number {
    const width = this.#width;
    const keys = this.#keys;
    const mask = this.#slots.length - 1;
    for (let slot = hashTuple(tuple, width) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.#slots[slot] as number;
      if (entry === 0) break;
      const row = entry - 1;
      let equal = true;
      for (let position = 0; position < width; position++) {
        if (keys[row * width + position] !== tuple[position]) {
          equal = false;
          break;
        }
      }
      if (equal) return row;
    }
    const row = this.#rows;
    if ((row + 1) * width > keys.length) {
      const grown = new Int32Array(keys.length * 2);
      grown.set(keys);
      this.#keys = grown;
    }
    this.#keys.set(tuple.subarray(0, width), row * width);
    this.#rows = row + 1;
    if (this.#rows * 2 > this.#slots.length) this.#rehash(this.#slots.length * 2);
    else this.#place(row);
    return row;
  }

  #place(row: number): void {
    const mask = this.#slots.length - 1;
    const tuple = this.#keys.subarray(row * this.#width, (row + 1) * this.#width);
    let slot = hashTuple(tuple, this.#width) & mask;
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = row + 1;
  }

  #rehash(capacity: number): void {
    this.#slots = new Int32Array(capacity);
    for (let row = 0; row < this.#rows; row++) this.#place(row);
  }
}

function hashTuple(tuple: Int32Array, width: number): number {
  let hash = 0x811c9dc5;
  for (let position = 0; position < width; position++) {
    hash = Math.imul(hash ^ (tuple[position] as number), 0x01000193);
    hash ^= hash >>> 15;
  }
  // 30 bits: a small integer, which V8 never boxes (a uint32 above 2^30 becomes a heap number).
  return hash & 0x3fffffff;
}
