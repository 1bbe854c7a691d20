// Every op's duration and row, in arrival order, for exact operator percentiles: 12 bytes per op in
// fixed-size typed chunks (growing never copies), whatever the number of rows. A list per row cost
// a typed array object and its partly empty tail per row, which dominated tables grouped by span
// path (tens of thousands of rows). The durations of the rows that are printed are gathered once,
// at the end.
import type { U64 } from "@cg/schema/core";

/** Ops per chunk (768 KiB of durations and rows). */
const CHUNK = 1 << 16;

export class DurationLog {
  readonly #durations: Float64Array[] = [];
  readonly #rows: Int32Array[] = [];
  /** Durations above 2^53 − 1 by op index (NaN in the chunk). */
  readonly #big = new Map<number, bigint>();
  #count = 0;

  add(row: number, duration: U64): void {
    const slot = this.#count % CHUNK;
    if (slot === 0) {
      this.#durations.push(new Float64Array(CHUNK));
      this.#rows.push(new Int32Array(CHUNK));
    }
    const chunk = this.#durations.length - 1;
    if (typeof duration === "bigint" && duration > BigInt(Number.MAX_SAFE_INTEGER)) {
      (this.#durations[chunk] as Float64Array)[slot] = Number.NaN;
      this.#big.set(this.#count, duration);
    } else {
      (this.#durations[chunk] as Float64Array)[slot] = Number(duration);
    }
    (this.#rows[chunk] as Int32Array)[slot] = row;
    this.#count++;
  }

  /**
   * The sorted durations of each wanted row: `slotOf[row]` is the row's place in the answer (or -1),
   * `calls[place]` its number of ops. Rows with a duration past 2^53 − 1 come as BigUint64Arrays.
   */
  sortedDurations(slotOf: Int32Array, calls: readonly number[]): (Float64Array | BigUint64Array)[] {
    const values = calls.map((count) => new Float64Array(count));
    const filled = new Int32Array(calls.length);
    const bigRows = new Map<number, Map<number, bigint>>();
    for (let op = 0; op < this.#count; op++) {
      const chunk = Math.floor(op / CHUNK);
      const row = (this.#rows[chunk] as Int32Array)[op % CHUNK] as number;
      const place = slotOf[row] as number;
      if (place < 0) continue;
      const duration = (this.#durations[chunk] as Float64Array)[op % CHUNK] as number;
      const at = filled[place] as number;
      filled[place] = at + 1;
      (values[place] as Float64Array)[at] = duration;
      if (Number.isNaN(duration)) {
        const big = bigRows.get(place) ?? new Map<number, bigint>();
        big.set(at, this.#big.get(op) as bigint);
        bigRows.set(place, big);
      }
    }
    return values.map((row, place) => {
      const big = bigRows.get(place);
      if (big === undefined) return row.sort();
      const exact = new BigUint64Array(row.length);
      for (let at = 0; at < row.length; at++) exact[at] = big.get(at) ?? BigInt(row[at] as number);
      return exact.sort();
    });
  }
}
