// A growable column of u64 values by row, for state kept per row (operator sums, minima and
// maxima in `@cg/parser`, live allocations here): numbers in a Float64Array while they are safe
// integers, exact bigints beside it for the rare rows past 2^53 − 1 (NaN marks those rows in the
// array). 8 bytes a row instead of a JavaScript number-or-bigint field on an object per row.
import { normalizeU64, type U64 } from "@cg/schema/core";

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A u64 as a number when it is a safe integer, else as a bigint: `normalizeU64` of `@cg/schema`,
 * which decides the representation for every package.
 * @deprecated Use `normalizeU64` from `@cg/schema`.
 */
export function exactU64(value: bigint): U64 {
  return normalizeU64(value);
}

export class U64Column {
  #values: Float64Array;
  readonly #big = new Map<number, bigint>();

  constructor(capacity = 64) {
    this.#values = new Float64Array(capacity);
  }

  get byteLength(): number {
    return this.#values.byteLength;
  }

  /** Makes room for rows below `capacity` (new rows hold 0). */
  reserve(capacity: number): void {
    if (capacity <= this.#values.length) return;
    let size = this.#values.length * 2;
    while (size < capacity) size *= 2;
    const grown = new Float64Array(size);
    grown.set(this.#values);
    this.#values = grown;
  }

  get(row: number): U64 {
    const value = this.#values[row] as number;
    return Number.isNaN(value) ? (this.#big.get(row) as bigint) : value;
  }

  set(row: number, value: U64): void {
    if (typeof value === "bigint" && value > SAFE) {
      this.#values[row] = Number.NaN;
      this.#big.set(row, value);
    } else {
      this.#values[row] = Number(value);
      if (this.#big.size > 0) this.#big.delete(row);
    }
  }

  /** Adds `value` to the row, exactly. */
  add(row: number, value: U64): void {
    const current = this.#values[row] as number;
    if (typeof value === "number" && !Number.isNaN(current)) {
      const sum = current + value;
      if (sum <= Number.MAX_SAFE_INTEGER) {
        this.#values[row] = sum;
        return;
      }
    }
    this.set(row, BigInt(this.get(row)) + BigInt(value));
  }

  /** -1, 0 or 1 as the row's value is below, equal to or above `value`. */
  compare(row: number, value: U64): number {
    const current = this.#values[row] as number;
    if (typeof value === "number" && !Number.isNaN(current)) {
      return current < value ? -1 : current > value ? 1 : 0;
    }
    const left = BigInt(this.get(row));
    const right = BigInt(value);
    return left < right ? -1 : left > right ? 1 : 0;
  }

  /** -1, 0 or 1 as row `left` holds less than, as much as or more than row `right`. */
  compareRows(left: number, right: number): number {
    const a = this.#values[left] as number;
    const b = this.#values[right] as number;
    if (!Number.isNaN(a) && !Number.isNaN(b)) return a < b ? -1 : a > b ? 1 : 0;
    return this.compare(left, this.get(right));
  }
}
