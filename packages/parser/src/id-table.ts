// Interns strings (span ids, span names) into dense indexes 0, 1, 2, … without a JavaScript string
// or Map entry per value: ASCII values are copied into one byte arena and found through an
// open-addressing table of typed arrays, about 16 bytes plus the value's length each. A trace of 10
// million spans needs all of its span ids to check duplicates and parents; held as a Set of strings
// they cost about 190 bytes each (1.9 GB), here about 25. Values with a character above U+007F
// (rare in ids) go to an ordinary Map beside the arena.

import { grownCopy } from "@cg/memory";
import { compareCodePoints, hashString } from "@cg/schema/core";

const EMPTY = 0;
/**
 * Tables start small and double: the growth paths then run early in any process (on the first
 * few ids), so V8 has seen them, and the arrays they replace, before it optimizes the callers. A
 * table that first grows in the middle of a big file would make V8 discard the reader's optimized
 * loop there; one that first grew at its 64th id, 10,000 lines into a writer-made trace, made it
 * abandon its first compile of the column reader's run loop, which had begun by then.
 */
const FIRST_CAPACITY = 8;
const FIRST_ARENA_BYTES = 32;
/** A bit set's first words (see FIRST_CAPACITY). */
const FIRST_WORDS = 1;

function isAscii(value: string): boolean {
  for (let index = 0; index < value.length; index++) if (value.charCodeAt(index) > 0x7f) return false;
  return true;
}

/** Thrown when a table would pass its byte budget; the caller turns it into a clear message. */
export class IdBudgetError extends RangeError {
  constructor(readonly bytes: number) {
    super(`id table would grow past its budget of ${bytes} bytes`);
  }
}

export class IdTable {
  #arena = new Uint8Array(FIRST_ARENA_BYTES);
  #arenaLength = 0;
  /** Arena offset of index i's value; entry i + 1 is its end. */
  #offsets = new Uint32Array(FIRST_CAPACITY + 1);
  #hashes = new Uint32Array(FIRST_CAPACITY);
  /** Index + 1 of the value in each slot, EMPTY for a free slot. */
  #slots = new Int32Array(FIRST_CAPACITY * 2);
  #count = 0;
  /** Indexes of non-ASCII values. */
  readonly #other = new Map<string, number>();
  /** Non-ASCII values by index (sparse). */
  readonly #otherValues = new Map<number, string>();
  readonly #budgetBytes: number;

  /** `budgetBytes`: the most bytes the table may hold (default: no limit beyond typed-array sizes). */
  constructor(budgetBytes = Number.POSITIVE_INFINITY) {
    this.#budgetBytes = budgetBytes;
  }

  /** Number of distinct values. */
  get size(): number {
    return this.#count;
  }

  /** Bytes held by the table's arrays (what the memory budget counts). */
  get byteLength(): number {
    return (
      this.#arena.byteLength + this.#offsets.byteLength + this.#hashes.byteLength + this.#slots.byteLength
    );
  }

  /** The index of `value`, or -1 when it was never added. */
  get(value: string): number {
    if (!isAscii(value)) return this.#other.get(value) ?? -1;
    return this.#find(value, hashString(value));
  }

  /** The index of `value`, adding it when new (indexes are given in order of first addition). */
  intern(value: string): number {
    if (!isAscii(value)) {
      const known = this.#other.get(value);
      if (known !== undefined) return known;
      const index = this.#push(0);
      this.#other.set(value, index);
      this.#otherValues.set(index, value);
      return index;
    }
    const hash = hashString(value);
    const found = this.#find(value, hash);
    if (found >= 0) return found;
    this.#reserveArena(value.length);
    const arena = this.#arena;
    let offset = this.#arenaLength;
    for (let index = 0; index < value.length; index++) arena[offset++] = value.charCodeAt(index);
    this.#arenaLength = offset;
    const index = this.#push(hash);
    this.#insert(index, hash);
    return index;
  }

  /** The value at `index` (a new string each call: for messages and results, not hot loops). */
  valueAt(index: number): string {
    const other = this.#otherValues.get(index);
    if (other !== undefined) return other;
    const start = this.#offsets[index] as number;
    const end = this.#offsets[index + 1] as number;
    let value = "";
    // In slices, so a long id never spreads into one call's arguments.
    for (let from = start; from < end; from += 4096) {
      value += String.fromCharCode.apply(
        null,
        this.#arena.subarray(from, Math.min(end, from + 4096)) as never,
      );
    }
    return value;
  }

  /** Code point order of two values, as `compareCodePoints` orders the strings. */
  compare(left: number, right: number): number {
    if (this.#otherValues.size > 0 && (this.#otherValues.has(left) || this.#otherValues.has(right))) {
      return compareCodePoints(this.valueAt(left), this.valueAt(right));
    }
    const arena = this.#arena;
    const offsets = this.#offsets;
    let a = offsets[left] as number;
    let b = offsets[right] as number;
    const aEnd = offsets[left + 1] as number;
    const bEnd = offsets[right + 1] as number;
    while (a < aEnd && b < bEnd) {
      const difference = (arena[a++] as number) - (arena[b++] as number);
      if (difference !== 0) return difference;
    }
    return aEnd - a - (bEnd - b);
  }

  #find(value: string, hash: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    const hashes = this.#hashes;
    const offsets = this.#offsets;
    const arena = this.#arena;
    const length = value.length;
    let slot = hash & mask;
    while (true) {
      const entry = slots[slot] as number;
      if (entry === EMPTY) return -1;
      const index = entry - 1;
      if (hashes[index] === hash) {
        const start = offsets[index] as number;
        if ((offsets[index + 1] as number) - start === length) {
          let same = true;
          for (let at = 0; at < length; at++) {
            if (arena[start + at] !== value.charCodeAt(at)) {
              same = false;
              break;
            }
          }
          if (same) return index;
        }
      }
      slot = (slot + 1) & mask;
    }
  }

  #push(hash: number): number {
    const index = this.#count;
    if (index + 1 >= this.#hashes.length) this.#growEntries();
    this.#hashes[index] = hash;
    this.#offsets[index + 1] = this.#arenaLength;
    this.#count = index + 1;
    return index;
  }

  #insert(index: number, hash: number): void {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let slot = hash & mask;
    while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
    slots[slot] = index + 1;
  }

  #growEntries(): void {
    const capacity = this.#hashes.length * 2;
    this.#checkBudget(capacity * 4 * 4 + this.#arena.byteLength);
    const hashes = grownCopy(this.#hashes, capacity);
    this.#hashes = hashes;
    this.#offsets = grownCopy(this.#offsets, capacity + 1);
    // Slots stay at most half full, so probes stay short.
    this.#slots = new Int32Array(capacity * 2);
    for (let index = 0; index < this.#count; index++) {
      if (!this.#otherValues.has(index)) this.#insert(index, hashes[index] as number);
    }
  }

  #reserveArena(extra: number): void {
    const needed = this.#arenaLength + extra;
    if (needed <= this.#arena.length) return;
    let capacity = this.#arena.length * 2;
    while (capacity < needed) capacity *= 2;
    if (capacity > 0xffffffff) throw new IdBudgetError(0xffffffff);
    this.#checkBudget(capacity + this.#hashes.byteLength * 4);
    this.#arena = grownCopy(this.#arena.subarray(0, this.#arenaLength), capacity);
  }

  #checkBudget(bytes: number): void {
    if (bytes > this.#budgetBytes) throw new IdBudgetError(this.#budgetBytes);
  }
}

/** A growable array of bits by index (e.g. "span i was started"). */
export class BitSet {
  #words = new Uint32Array(FIRST_WORDS);

  has(index: number): boolean {
    const word = index >>> 5;
    return word < this.#words.length && ((this.#words[word] as number) & (1 << (index & 31))) !== 0;
  }

  add(index: number): void {
    const word = index >>> 5;
    if (word >= this.#words.length) {
      let capacity = this.#words.length * 2;
      while (capacity <= word) capacity *= 2;
      this.#words = grownCopy(this.#words, capacity);
    }
    this.#words[word] = (this.#words[word] as number) | (1 << (index & 31));
  }
}
