/**
 * Keeps at most `limit` items of a series fed one at a time, in order, without holding the series:
 * the first item, the last, and per bucket of consecutive items the one with the largest weight
 * (the earliest of equals), so the peak always survives. Buckets start one item wide and double
 * (neighbours merge, keeping the heavier) whenever there would be more than `limit − 2` of them, so
 * a long series keeps between about half and all of `limit` points (`limit` ≥ 3). The result depends only on
 * the items and their order, so a document and a stream of the same series give the same points.
 */
export class MaxDownsampler<Item> {
  readonly #capacity: number;
  readonly #weight: (item: Item) => number;
  #first: Item | undefined;
  #last: Item | undefined;
  #count = 0;
  /** Closed buckets: the heaviest item of each, and its weight. */
  #kept: Item[] = [];
  #weights: number[] = [];
  #width = 1;
  /** The bucket being filled (items after the first). */
  #open: Item | undefined;
  #openWeight = 0;
  #openSize = 0;

  constructor(limit: number, weight: (item: Item) => number) {
    this.#capacity = Math.max(1, Math.floor(limit) - 2);
    this.#weight = weight;
  }

  /** Items pushed so far. */
  get count(): number {
    return this.#count;
  }

  push(item: Item): void {
    this.#count++;
    if (this.#count === 1) {
      this.#first = item;
      return;
    }
    if (this.#last !== undefined) this.#add(this.#last);
    this.#last = item;
  }

  /** The kept items, in order (the whole series while it fits). */
  items(): Item[] {
    if (this.#first === undefined) return [];
    const result = [this.#first, ...this.#kept];
    if (this.#open !== undefined) result.push(this.#open);
    if (this.#last !== undefined) result.push(this.#last);
    return result;
  }

  /** An inner item (neither the first nor the last). */
  #add(item: Item): void {
    // Only a new bucket can overflow: kept buckets plus the open one never exceed the capacity.
    if (this.#openSize === 0 && this.#kept.length >= this.#capacity) this.#merge();
    const weight = this.#weight(item);
    if (this.#open === undefined || weight > this.#openWeight) {
      this.#open = item;
      this.#openWeight = weight;
    }
    this.#openSize++;
    if (this.#openSize < this.#width) return;
    this.#kept.push(this.#open);
    this.#weights.push(this.#openWeight);
    this.#open = undefined;
    this.#openSize = 0;
  }

  /** Halves the closed buckets: each pair keeps its heavier item; the width doubles. */
  #merge(): void {
    const kept: Item[] = [];
    const weights: number[] = [];
    for (let index = 0; index + 1 < this.#kept.length; index += 2) {
      const left = this.#weights[index] as number;
      const right = this.#weights[index + 1] as number;
      const pick = right > left ? index + 1 : index;
      kept.push(this.#kept[pick] as Item);
      weights.push(this.#weights[pick] as number);
    }
    if (this.#kept.length % 2 === 1) {
      // An odd last bucket becomes the open one, half filled at the new width.
      this.#open = this.#kept[this.#kept.length - 1] as Item;
      this.#openWeight = this.#weights[this.#weights.length - 1] as number;
      this.#openSize = this.#width;
    }
    this.#kept = kept;
    this.#weights = weights;
    this.#width *= 2;
  }
}
