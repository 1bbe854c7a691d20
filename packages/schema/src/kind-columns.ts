// The typed columns of one event kind, derived from its row of the layout table: one column per
// wire field, each a typed array (transferable between threads) that grows by doubling and is
// reused from batch to batch. Absence and values a typed array cannot hold are written as markers:
// - string: dictionary id (Int32Array), ABSENT_ID when an optional key is absent;
// - enum: variant index (Uint8Array), ABSENT_ENUM when absent;
// - u64: the value (Float64Array, exact up to 2^53 − 1), ABSENT_U64 when absent, EXACT_U64 when the
//   value is above 2^53 − 1 and lies, as a bigint, in the column's `exact` map by row;
// - boolean: 0 / 1 (Uint8Array); f64: the value (Float64Array), NaN when absent;
// - strings (op inputs): `offsets` (rows + 1) into a flat Int32Array of dictionary ids;
// - shape: `offsets` into a flat Float64Array of dimensions, EXACT_U64 with the bigint in `exact`
//   by flat index;
// - string_map (`meta.tags`): the map objects themselves (one `meta` per trace).
import type { EventLayout, FieldLayout, WireType } from "./event-layouts.js";

export const ABSENT_ID = -1;
export const ABSENT_ENUM = 255;
export const ABSENT_U64 = -1;
export const EXACT_U64 = -2;

const INITIAL_ROWS = 64;

type Numbers = Int32Array | Uint8Array | Float64Array;

/** One field's storage; which members are used depends on `type`. */
export interface FieldColumn {
  readonly key: string;
  readonly type: WireType;
  readonly variants: readonly string[] | undefined;
  /** Per row (see the file comment for the markers). */
  values: Numbers;
  /** Lists only: row r's elements are flat[offsets[r] .. offsets[r + 1]). */
  offsets: Int32Array;
  flat: Int32Array | Float64Array;
  /** Lists only: elements written for the row being read, not yet committed. */
  pending: number;
  /** u64 and shape: the exact values above 2^53 − 1, by row (u64) or flat index (shape). */
  readonly exact: Map<number, bigint>;
  /** string_map only. */
  maps: (Readonly<Record<string, string>> | undefined)[];
}

type NumbersConstructor = Int32ArrayConstructor | Uint8ArrayConstructor | Float64ArrayConstructor;

/** The typed array a column of `type` holds its rows in (string ids, bytes, doubles). */
export function rowArrayOf(type: WireType): NumbersConstructor {
  switch (type) {
    case "string":
      return Int32Array;
    case "enum":
    case "boolean":
      return Uint8Array;
    default:
      return Float64Array;
  }
}

/** The typed array a list column of `type` holds its elements in (string ids, dimensions). */
export function elementArrayOf(type: WireType): Int32ArrayConstructor | Float64ArrayConstructor {
  return type === "strings" ? Int32Array : Float64Array;
}

function fieldColumn(field: FieldLayout): FieldColumn {
  const list = field.type === "strings" || field.type === "shape";
  return {
    key: field.key,
    type: field.type,
    variants: field.variants,
    values: new (rowArrayOf(field.type))(list || field.type === "string_map" ? 0 : INITIAL_ROWS),
    offsets: new Int32Array(list ? INITIAL_ROWS + 1 : 0),
    flat: new (elementArrayOf(field.type))(list ? INITIAL_ROWS : 0),
    pending: 0,
    exact: new Map(),
    maps: [],
  };
}

function grown<T extends Numbers>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}

/** The columns of one kind; `size` committed rows. */
export class KindColumns {
  readonly kind: string;
  readonly code: number;
  readonly fields: readonly FieldColumn[];
  /** Field columns by key. */
  readonly byKey: ReadonlyMap<string, FieldColumn>;
  size = 0;
  #capacity = INITIAL_ROWS;
  readonly #lists: readonly FieldColumn[];

  constructor(layout: EventLayout, code: number) {
    this.kind = layout.kind;
    this.code = code;
    this.fields = layout.fields.map(fieldColumn);
    this.byKey = new Map(this.fields.map((field) => [field.key, field]));
    this.#lists = this.fields.filter((field) => field.type === "strings" || field.type === "shape");
  }

  /** The row the next event is written to, with room for it; lists start their pending elements. */
  open(): number {
    const row = this.reserve();
    for (const list of this.#lists) list.pending = list.offsets[row] as number;
    return row;
  }

  /**
   * `open` without starting the lists' pending elements, for a reader generated for this kind that
   * starts each of its list columns itself (`pending = offsets[row]`): small enough for V8 to inline
   * into such a reader, where `open`'s loop was a call per row.
   */
  reserve(): number {
    const row = this.size;
    if (row >= this.#capacity) this.#grow();
    return row;
  }

  /**
   * Room for `rows` more rows; returns the first. A caller writing a run of rows column by column
   * fills them there (lists: their offsets, and their elements after `roomForElements`), then sets
   * `size`.
   */
  reserveRows(rows: number): number {
    const first = this.size;
    while (first + rows > this.#capacity) this.#grow();
    return first;
  }

  /** Room in `column.flat` for `count` more elements after those of row `row` on. */
  static roomForElements(column: FieldColumn, row: number, count: number): void {
    const needed = (column.offsets[row] as number) + count;
    let length = Math.max(column.flat.length, 1);
    while (length < needed) length *= 2;
    if (length > column.flat.length) column.flat = grown(column.flat, length);
  }

  /** Room in `column.flat` for one more pending element; returns its index. */
  static flatSlot(column: FieldColumn): number {
    const at = column.pending;
    if (at >= column.flat.length) column.flat = grown(column.flat, column.flat.length * 2);
    column.pending = at + 1;
    return at;
  }

  /** Makes the row opened last part of the columns. */
  commit(): number {
    const row = this.size;
    for (const list of this.#lists) list.offsets[row + 1] = list.pending;
    this.size = row + 1;
    return row;
  }

  /** Empties the columns for reuse (their buffers are kept). */
  clear(): void {
    this.size = 0;
    for (const field of this.fields) {
      if (field.exact.size > 0) field.exact.clear();
      if (field.maps.length > 0) field.maps.length = 0;
    }
  }

  /** Drops the last committed row (a line the ordering rules refused after it was read). */
  dropLast(): void {
    if (this.size === 0) return;
    this.size--;
    for (const field of this.fields) {
      field.exact.delete(this.size);
      if (field.type === "string_map") field.maps.length = this.size;
    }
  }

  #grow(): void {
    const capacity = this.#capacity * 2;
    for (const field of this.fields) {
      if (field.type === "strings" || field.type === "shape")
        field.offsets = grown(field.offsets, capacity + 1);
      else if (field.type !== "string_map") field.values = grown(field.values, capacity);
    }
    this.#capacity = capacity;
  }

  /** Takes over columns received from another thread (see `ColumnBatch.fromMessage`). */
  adopt(
    size: number,
    received: readonly Pick<FieldColumn, "values" | "offsets" | "flat" | "exact" | "maps">[],
  ): void {
    let capacity = Number.POSITIVE_INFINITY;
    this.fields.forEach((field, index) => {
      const from = received[index];
      if (from === undefined)
        throw new RangeError(`received columns of ${this.kind} lack field ${field.key}`);
      field.values = from.values;
      field.offsets = from.offsets;
      field.flat = from.flat;
      field.maps = from.maps;
      field.exact.clear();
      for (const [at, value] of from.exact) field.exact.set(at, value);
      if (field.type === "strings" || field.type === "shape")
        capacity = Math.min(capacity, field.offsets.length - 1);
      else if (field.type !== "string_map") capacity = Math.min(capacity, field.values.length);
    });
    this.size = size;
    this.#capacity = Math.max(1, Number.isFinite(capacity) ? capacity : INITIAL_ROWS);
  }

  /** The ArrayBuffers holding this kind's columns (for a transfer list). */
  buffers(into: ArrayBufferLike[]): void {
    for (const field of this.fields) {
      for (const array of [field.values, field.offsets, field.flat]) {
        if (array.byteLength > 0) into.push(array.buffer);
      }
    }
  }
}
