// Dictionary ids of short ASCII strings (at most 12 bytes: ids, dtypes, devices, op names, enum
// values), keyed by their bytes as three little-endian words and the length: open addressing in
// typed arrays. A batch's dictionary starts afresh with every batch; a Map cleared each time grew
// again through every doubling, and its lookups hashed each new string, which made interning the
// column reader's largest cost. Here clearing is a new stamp, and the capacity stays.

/** The most bytes a short key holds. */
export const SHORT_KEY_BYTES = 12;

const INITIAL_SLOTS = 1 << 12;

export class ShortStringIds {
  /** Per slot: length, then the three words (zero past the length). */
  #keys = new Int32Array(INITIAL_SLOTS * 4);
  #ids = new Int32Array(INITIAL_SLOTS);
  /** A slot is taken when its stamp is the current one. */
  #stamps = new Int32Array(INITIAL_SLOTS);
  #stamp = 1;
  #mask = INITIAL_SLOTS - 1;
  #count = 0;
  /** The empty slot the last missed `find` ended at. */
  #free = 0;

  /** Forgets every id (O(1): a new stamp). */
  clear(): void {
    this.#count = 0;
    this.#stamp++;
    if (this.#stamp === 0x7fffffff) {
      this.#stamps.fill(0);
      this.#stamp = 1;
    }
  }

  /** The id of the key, or -1 (then `insert` may store one: the slot found is kept until then). */
  find(length: number, word0: number, word1: number, word2: number): number {
    const keys = this.#keys;
    const stamps = this.#stamps;
    const stamp = this.#stamp;
    let slot = hashWords(length, word0, word1, word2) & this.#mask;
    const ids = this.#ids;
    while (stamps[slot] === stamp) {
      const at = slot * 4;
      // Every probe runs the same loads and operations: all four words in one test, and the id read
      // whether it matches or not. A reader's lookups are mostly of new strings, which stop early,
      // and a load or comparison V8 had never seen run before it optimized the reader threw the
      // reader back to the interpreter the first time a lookup went that far.
      const differences =
        ((keys[at] as number) ^ length) |
        ((keys[at + 1] as number) ^ word0) |
        ((keys[at + 2] as number) ^ word1) |
        ((keys[at + 3] as number) ^ word2);
      const id = ids[slot] as number;
      if (differences === 0) return id;
      slot = (slot + 1) & this.#mask;
    }
    this.#free = slot;
    return -1;
  }

  /** Stores `id` under the key `find` just missed (no other call in between). */
  insert(length: number, word0: number, word1: number, word2: number, id: number): void {
    const slot = this.#free;
    const keys = this.#keys;
    const at = slot * 4;
    keys[at] = length;
    keys[at + 1] = word0;
    keys[at + 2] = word1;
    keys[at + 3] = word2;
    this.#ids[slot] = id;
    this.#stamps[slot] = this.#stamp;
    if (++this.#count * 2 > this.#mask) this.#grow();
  }

  #grow(): void {
    const keys = this.#keys;
    const ids = this.#ids;
    const stamps = this.#stamps;
    const stamp = this.#stamp;
    const slots = (this.#mask + 1) * 2;
    this.#keys = new Int32Array(slots * 4);
    this.#ids = new Int32Array(slots);
    this.#stamps = new Int32Array(slots);
    this.#stamp = 1;
    this.#mask = slots - 1;
    for (let slot = 0; slot < stamps.length; slot++) {
      if (stamps[slot] !== stamp) continue;
      const at = slot * 4;
      const length = keys[at] as number;
      const word0 = keys[at + 1] as number;
      const word1 = keys[at + 2] as number;
      const word2 = keys[at + 3] as number;
      let to = hashWords(length, word0, word1, word2) & this.#mask;
      while (this.#stamps[to] === 1) to = (to + 1) & this.#mask;
      this.#keys.set(keys.subarray(at, at + 4), to * 4);
      this.#ids[to] = ids[slot] as number;
      this.#stamps[to] = 1;
    }
  }
}

function hashWords(length: number, word0: number, word1: number, word2: number): number {
  const hash = Math.imul(
    word0 ^ Math.imul(word1, 0x9e3779b1) ^ Math.imul(word2 ^ length, 0x85ebca77),
    0x27d4eb2d,
  );
  return hash ^ (hash >>> 15);
}

/**
 * The words of a short ASCII string as the canonical cursor reads them from the bytes (little-endian,
 * zero past the length) into `into`, or false when it is longer or not ASCII.
 */
export function shortStringWords(text: string, into: Int32Array): boolean {
  const length = text.length;
  if (length > SHORT_KEY_BYTES) return false;
  into[0] = 0;
  into[1] = 0;
  into[2] = 0;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code > 0x7f) return false;
    const word = index >> 2;
    into[word] = (into[word] as number) | (code << ((index & 3) * 8));
  }
  return true;
}
