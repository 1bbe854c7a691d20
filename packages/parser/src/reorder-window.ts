// A bounded reorder buffer: a binary min-heap that releases its smallest item once it holds more
// than `capacity` items. Input that is out of order by fewer than `capacity` positions comes out
// sorted; anything later than that is detected (an item smaller than one already released).

export class ReorderWindow<T> {
  readonly #heap: { item: T; sequence: number }[] = [];
  readonly #compare: (left: T, right: T) => number;
  readonly #capacity: number;
  readonly #release: (item: T) => void;
  #sequence = 0;
  #last: T | undefined;
  #hasLast = false;
  /** True while everything released so far was released in sorted order. */
  exact = true;

  constructor(capacity: number, compare: (left: T, right: T) => number, release: (item: T) => void) {
    this.#capacity = Math.max(1, capacity);
    this.#compare = compare;
    this.#release = release;
  }

  push(item: T): void {
    if (this.#hasLast && this.#compare(item, this.#last as T) < 0) this.exact = false;
    const heap = this.#heap;
    heap.push({ item, sequence: this.#sequence++ });
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (this.#less(heap[parent] as never, heap[index] as never)) break;
      [heap[parent], heap[index]] = [heap[index] as never, heap[parent] as never];
      index = parent;
    }
    if (heap.length > this.#capacity) this.#pop();
  }

  /** Releases everything still held, in order. */
  drain(): void {
    while (this.#heap.length > 0) this.#pop();
  }

  #less(left: { item: T; sequence: number }, right: { item: T; sequence: number }): boolean {
    const order = this.#compare(left.item, right.item);
    return order < 0 || (order === 0 && left.sequence < right.sequence);
  }

  #pop(): void {
    const heap = this.#heap;
    const top = heap[0] as { item: T; sequence: number };
    const last = heap.pop() as { item: T; sequence: number };
    if (heap.length > 0) {
      heap[0] = last;
      let index = 0;
      while (true) {
        const left = index * 2 + 1;
        const right = left + 1;
        let smallest = index;
        if (left < heap.length && this.#less(heap[left] as never, heap[smallest] as never)) smallest = left;
        if (right < heap.length && this.#less(heap[right] as never, heap[smallest] as never))
          smallest = right;
        if (smallest === index) break;
        [heap[smallest], heap[index]] = [heap[index] as never, heap[smallest] as never];
        index = smallest;
      }
    }
    this.#last = top.item;
    this.#hasLast = true;
    this.#release(top.item);
  }
}
