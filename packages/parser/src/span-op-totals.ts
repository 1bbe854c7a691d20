// The own ops of every span: count, summed duration and summed resolved storage bytes per span row,
// in typed columns. An op may come before its span starts (the reader allows it); its figures wait
// by span id and join the span's row when it does, so every fold that sums ops per span (the
// summary's rankings and span costs, a comparison side) follows the one rule.
import { grownCopy } from "@cg/memory";
import { normalizeU64, type U64 } from "@cg/schema/core";

/** Own ops per span row: count, summed duration and summed resolved storage bytes. */
export class SpanOpTotals {
  #count = new Int32Array(1024);
  #ns = new Float64Array(1024);
  #bytes = new Float64Array(1024);
  /** Exact sums by row once a sum leaves the safe integer range. */
  readonly #bigNs = new Map<number, bigint>();
  readonly #bigBytes = new Map<number, bigint>();
  /** Ops of spans not started yet, by span id. */
  readonly #early = new Map<string, { count: number; ns: bigint; bytes: bigint }>();

  /** True when some span's op sums left the safe integer range. */
  get hasBigValues(): boolean {
    return this.#bigNs.size > 0 || this.#bigBytes.size > 0;
  }

  /** Adds `count` ops (one by default) of row `row`; returns the first one's ordinal within the span. */
  add(row: number, durationNs: U64, storageBytes: U64, count = 1): number {
    if (row >= this.#count.length) this.#grow(row);
    const ordinal = this.#count[row] as number;
    this.#count[row] = ordinal + count;
    addTo(this.#ns, this.#bigNs, row, durationNs);
    addTo(this.#bytes, this.#bigBytes, row, storageBytes);
    return ordinal;
  }

  /** Adds an op of a span that has not started yet; returns its ordinal within the span. */
  addEarly(spanId: string, durationNs: U64, storageBytes: U64): number {
    let early = this.#early.get(spanId);
    if (early === undefined) {
      early = { count: 0, ns: 0n, bytes: 0n };
      this.#early.set(spanId, early);
    }
    early.ns += BigInt(durationNs);
    early.bytes += BigInt(storageBytes);
    return early.count++;
  }

  /** The span `spanId` started as row `row`: the ops that came before it join its row. */
  claimEarly(spanId: string, row: number): void {
    if (this.#early.size === 0) return;
    const early = this.#early.get(spanId);
    if (early === undefined) return;
    this.add(row, normalizeU64(early.ns), normalizeU64(early.bytes), early.count);
    this.#early.delete(spanId);
  }

  count(row: number): number {
    return row < this.#count.length ? (this.#count[row] as number) : 0;
  }

  ns(row: number): bigint {
    return this.#bigNs.get(row) ?? BigInt(row < this.#ns.length ? (this.#ns[row] as number) : 0);
  }

  bytes(row: number): bigint {
    return this.#bigBytes.get(row) ?? BigInt(row < this.#bytes.length ? (this.#bytes[row] as number) : 0);
  }

  #grow(row: number): void {
    let capacity = this.#count.length * 2;
    while (capacity <= row) capacity *= 2;
    this.#count = grownCopy(this.#count, capacity);
    this.#ns = grownCopy(this.#ns, capacity);
    this.#bytes = grownCopy(this.#bytes, capacity);
  }
}

function addTo(column: Float64Array, big: Map<number, bigint>, row: number, value: U64): void {
  // The side map is nearly always empty: no hash lookup per op then.
  const known = big.size === 0 ? undefined : big.get(row);
  if (known !== undefined) {
    big.set(row, known + BigInt(value));
    return;
  }
  const current = column[row] as number;
  if (typeof value === "bigint" || current > Number.MAX_SAFE_INTEGER - value) {
    big.set(row, BigInt(current) + BigInt(value));
  } else {
    column[row] = current + value;
  }
}
