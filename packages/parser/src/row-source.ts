// A list of results too long to hold (every memory timeline point, every tensor of a GB trace):
// read once, in order, in batches, by whoever writes it out. `count` is known up front from the
// first pass, so a reader can plan (say how many rows it leaves out, sample evenly).

/** Events per batch when a trace is read again for its rows. */
export const REREAD_BATCH_SIZE = 4096;

export class RowSource<T> implements AsyncIterable<T> {
  readonly count: number;
  readonly #batches: () => AsyncIterable<readonly T[]>;

  constructor(count: number, batches: () => AsyncIterable<readonly T[]>) {
    this.count = count;
    this.#batches = batches;
  }

  /** Rows from a list already in memory. */
  static of<T>(rows: readonly T[]): RowSource<T> {
    return new RowSource(rows.length, async function* () {
      yield rows;
    });
  }

  /** The rows in batches (each call reads them again from the start). */
  batches(): AsyncIterable<readonly T[]> {
    return this.#batches();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for await (const batch of this.#batches()) yield* batch;
  }

  /** Every row in one array: only for results known to be small (tests, fixtures). */
  async toArray(): Promise<T[]> {
    const rows: T[] = [];
    for await (const batch of this.#batches()) for (const row of batch) rows.push(row);
    return rows;
  }

  /** A row source is written out by reading it, never serialised by accident. */
  toJSON(): never {
    throw new TypeError("a RowSource is read with batches(), not serialised with JSON.stringify");
  }
}
