// One column of a data chunk being filled, held in typed arrays laid out as DuckDB's vectors are
// (C API `duckdb.h`: u64/u32/f64/bool values, 16-byte `duckdb_string_t`, list entries of offset and
// length, a validity bitmask of 64-bit words) and copied into the chunk's vector in one call when
// the chunk is handed to the appender. No value object per cell: a number is split into two 32-bit
// words, a short ASCII string is written inline; only strings longer than 12 bytes or not ASCII are
// left for DuckDB to assign. A filled chunk is taken out as plain `ColumnData` (array buffers and
// strings), so it can be filled on one thread and written into DuckDB on another
// (column-vector.ts); nothing here touches DuckDB.
import type { SqlType } from "./event-columns.js";

const TWO_TO_32 = 4_294_967_296;
/** Longest string DuckDB stores inside its 16-byte string record. */
const INLINE_BYTES = 12;

/** Bytes of validity mask for `rows` rows: whole 64-bit words. */
export function validityBytes(rows: number): number {
  return Math.ceil(rows / 64) * 8;
}

/**
 * One column of a filled chunk as DuckDB's vector holds it: plain data, so it can be posted to
 * another thread (its array buffers transferred).
 */
export interface ColumnData {
  /** Values (fixed width), 16-byte string records, or list entries: `rowBytes` per row. */
  values: ArrayBuffer;
  rowBytes: number;
  /** Validity bitmask (a 0 bit is NULL); absent when no row is NULL. */
  validity?: ArrayBuffer;
  /** Strings longer than 12 bytes or not ASCII, for DuckDB to assign: rows and values. */
  strings?: { rows: number[]; values: string[] };
  /** A list's elements and how many there are. */
  child?: { data: ColumnData; rows: number };
  /** A struct's fields (a map's keys and values); the struct has no values of its own. */
  fields?: ColumnData[];
}

/** The array buffers of `data`, for a transfer list. */
export function columnTransferList(data: ColumnData, into: ArrayBuffer[] = []): ArrayBuffer[] {
  if (data.fields === undefined) into.push(data.values);
  if (data.validity !== undefined) into.push(data.validity);
  if (data.child !== undefined) columnTransferList(data.child.data, into);
  for (const field of data.fields ?? []) columnTransferList(field, into);
  return into;
}

export abstract class ColumnBuffer {
  /** Rows the typed arrays hold now (grows for list children). */
  protected capacity: number;
  #validity: Uint8Array<ArrayBuffer>;
  #hasNull = false;
  /** Buffers of chunks taken earlier and handed back (`recycle`), for the next chunks. */
  readonly #spares: ArrayBuffer[] = [];
  readonly #spareValidity: ArrayBuffer[] = [];

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#validity = new Uint8Array(validityBytes(capacity)).fill(0xff);
  }

  /** Stores the value of `row`; `null` or `undefined` is SQL NULL. */
  set(row: number, value: unknown): void {
    if (value === undefined || value === null) {
      this.#hasNull = true;
      const validity = this.#validity;
      validity[row >> 3] = (validity[row >> 3] as number) & ~(1 << (row & 7));
      this.setNull(row);
      return;
    }
    this.setValue(row, value);
  }

  /**
   * The first `rows` rows, and starts over. With `detach`, the data keeps the buffers (to be
   * transferred) and this column takes new ones; without, the data is only valid until the next
   * `set`.
   */
  take(rows: number, detach: boolean): ColumnData {
    const data = this.takeValues(rows, detach);
    if (this.#hasNull) {
      if (detach) {
        data.validity = this.#validity.buffer;
        const spare = this.#spareValidity.pop() ?? new ArrayBuffer(validityBytes(this.capacity));
        this.#validity = new Uint8Array(spare).fill(0xff);
      } else {
        data.validity = this.#validity.slice(0, validityBytes(rows)).buffer;
        this.#validity.fill(0xff);
      }
      this.#hasNull = false;
    }
    this.clear();
    return data;
  }

  /**
   * Takes back the buffers of a chunk taken with `detach` (once DuckDB has copied it), so later
   * chunks reuse them instead of allocating. Every row a chunk holds is written before it is
   * taken, so what a reused buffer held before does not matter.
   */
  recycle(data: ColumnData): void {
    if (data.validity?.byteLength === validityBytes(this.capacity)) this.#spareValidity.push(data.validity);
    this.recycleValues(data);
  }

  protected recycleValues(data: ColumnData): void {
    this.#spares.push(data.values);
  }

  /** A buffer of `byteLength` bytes: a recycled one of that size, or a new one. */
  protected buffer(byteLength: number): ArrayBuffer {
    const spares = this.#spares;
    while (spares.length > 0) {
      const spare = spares.pop() as ArrayBuffer;
      if (spare.byteLength === byteLength) return spare;
    }
    return new ArrayBuffer(byteLength);
  }

  /** Drops rows from `rows` on (a run that was rejected). */
  truncate(rows: number): void {
    const validity = this.#validity;
    for (let row = rows; row < this.capacity && row >> 3 < validity.length; row++) {
      validity[row >> 3] = (validity[row >> 3] as number) | (1 << (row & 7));
    }
    this.truncateValues(rows);
  }

  /** Makes room for at least `rows` rows, keeping the first `kept` (list elements grow so). */
  reserve(rows: number, kept: number): void {
    if (rows <= this.capacity) return;
    let capacity = this.capacity * 2;
    while (capacity < rows) capacity *= 2;
    const validity = new Uint8Array(validityBytes(capacity)).fill(0xff);
    validity.set(this.#validity.subarray(0, validityBytes(kept)));
    this.#validity = validity;
    this.capacity = capacity;
    this.growValues(capacity, kept);
  }

  protected abstract setValue(row: number, value: unknown): void;
  protected abstract takeValues(rows: number, detach: boolean): ColumnData;
  protected abstract growValues(capacity: number, kept: number): void;
  /** Whatever a NULL row still needs besides its validity bit (a list's empty entry). */
  protected setNull(_row: number): void {}
  protected clear(): void {}
  protected truncateValues(_rows: number): void {}
}

/** UBIGINT: two little-endian 32-bit words per value; numbers never become bigints. */
class U64Buffer extends ColumnBuffer {
  #words: Uint32Array<ArrayBuffer>;
  #wide: BigUint64Array<ArrayBuffer>;

  constructor(capacity: number) {
    super(capacity);
    this.#words = new Uint32Array(capacity * 2);
    this.#wide = new BigUint64Array(this.#words.buffer);
  }

  protected setValue(row: number, value: unknown): void {
    if (typeof value === "number") {
      const low = value % TWO_TO_32;
      this.#words[row * 2] = low;
      this.#words[row * 2 + 1] = (value - low) / TWO_TO_32;
    } else {
      this.#wide[row] = value as bigint;
    }
  }

  protected takeValues(_rows: number, detach: boolean): ColumnData {
    const values = this.#words.buffer;
    if (detach) this.growValues(this.capacity, 0);
    return { values, rowBytes: 8 };
  }

  protected growValues(capacity: number, kept: number): void {
    const words = new Uint32Array(this.buffer(capacity * 8));
    words.set(this.#words.subarray(0, kept * 2));
    this.#words = words;
    this.#wide = new BigUint64Array(words.buffer);
  }
}

type FixedWidthArray = Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer> | Uint8Array<ArrayBuffer>;
type FixedWidthView = (new (buffer: ArrayBuffer) => FixedWidthArray) & { BYTES_PER_ELEMENT: number };

/** UINTEGER, DOUBLE, BOOLEAN: one typed-array element per value, as DuckDB stores them. */
class FixedWidthBuffer extends ColumnBuffer {
  protected values: FixedWidthArray;
  readonly #view: FixedWidthView;

  constructor(capacity: number, view: FixedWidthView) {
    super(capacity);
    this.#view = view;
    this.values = new view(new ArrayBuffer(capacity * view.BYTES_PER_ELEMENT));
  }

  protected setValue(row: number, value: unknown): void {
    this.values[row] = value as number;
  }

  protected takeValues(_rows: number, detach: boolean): ColumnData {
    const { buffer, BYTES_PER_ELEMENT } = this.values;
    if (detach) this.growValues(this.capacity, 0);
    return { values: buffer, rowBytes: BYTES_PER_ELEMENT };
  }

  protected growValues(capacity: number, kept: number): void {
    const values = new this.#view(this.buffer(capacity * this.#view.BYTES_PER_ELEMENT));
    values.set(this.values.subarray(0, kept));
    this.values = values;
  }
}

class BooleanBuffer extends FixedWidthBuffer {
  constructor(capacity: number) {
    super(capacity, Uint8Array);
  }

  protected override setValue(row: number, value: unknown): void {
    this.values[row] = value === true ? 1 : 0;
  }
}

/**
 * VARCHAR as `duckdb_string_t` records: length, then up to 12 bytes inline (zero padded, as
 * DuckDB compares the whole record). Longer or non-ASCII strings are assigned by DuckDB after the
 * copy, which allocates them in the vector's own string heap.
 */
class VarcharBuffer extends ColumnBuffer {
  #records: Uint8Array<ArrayBuffer>;
  #lengths: Uint32Array<ArrayBuffer>;
  /** Rows and values of the strings DuckDB assigns itself. */
  #outOfLineRows: number[] = [];
  #outOfLineValues: string[] = [];

  constructor(capacity: number) {
    super(capacity);
    this.#records = new Uint8Array(capacity * 16);
    this.#lengths = new Uint32Array(this.#records.buffer);
  }

  protected setValue(row: number, value: unknown): void {
    const text = value as string;
    const length = text.length;
    const records = this.#records;
    const base = row * 16;
    if (length <= INLINE_BYTES) {
      let index = 0;
      for (; index < length; index++) {
        const code = text.charCodeAt(index);
        if (code > 0x7f) break;
        records[base + 4 + index] = code;
      }
      if (index === length) {
        this.#lengths[row * 4] = length;
        for (let pad = base + 4 + length; pad < base + 16; pad++) records[pad] = 0;
        return;
      }
    }
    records.fill(0, base, base + 16);
    this.#outOfLineRows.push(row);
    this.#outOfLineValues.push(text);
  }

  protected takeValues(rows: number, detach: boolean): ColumnData {
    const data: ColumnData = { values: this.#records.buffer, rowBytes: 16 };
    // Rows past `rows` were truncated away.
    this.truncateValues(rows);
    if (this.#outOfLineRows.length > 0) {
      data.strings = { rows: this.#outOfLineRows, values: this.#outOfLineValues };
      this.#outOfLineRows = [];
      this.#outOfLineValues = [];
    }
    if (detach) this.growValues(this.capacity, 0);
    return data;
  }

  protected override truncateValues(rows: number): void {
    let kept = 0;
    while (kept < this.#outOfLineRows.length && (this.#outOfLineRows[kept] as number) < rows) kept++;
    this.#outOfLineRows.length = kept;
    this.#outOfLineValues.length = kept;
  }

  protected growValues(capacity: number, kept: number): void {
    const records = new Uint8Array(this.buffer(capacity * 16));
    records.set(this.#records.subarray(0, kept * 16));
    this.#records = records;
    this.#lengths = new Uint32Array(records.buffer);
  }
}

/** A LIST column: (offset, length) entries as 64-bit words, elements in a child buffer. */
class ListBuffer extends ColumnBuffer {
  #entries: Uint32Array<ArrayBuffer>;
  readonly #child: ColumnBuffer;
  #childRows = 0;

  constructor(capacity: number, child: ColumnBuffer) {
    super(capacity);
    this.#entries = new Uint32Array(capacity * 4);
    this.#child = child;
  }

  protected setValue(row: number, value: unknown): void {
    const items = value as readonly unknown[];
    const offset = this.openList(row, items.length);
    const child = this.#child;
    for (let index = 0; index < items.length; index++) child.set(offset + index, items[index]);
  }

  /**
   * Makes `row` a list of `length` elements and returns the first one's row in `child`, where the
   * caller sets them (a copy from flat columns builds no array per row).
   */
  openList(row: number, length: number): number {
    const offset = this.#childRows;
    this.#entries[row * 4] = offset;
    this.#entries[row * 4 + 2] = length;
    this.#child.reserve(offset + length, offset);
    this.#childRows = offset + length;
    return offset;
  }

  /** The elements' column. */
  get child(): ColumnBuffer {
    return this.#child;
  }

  protected takeValues(rows: number, detach: boolean): ColumnData {
    // Rows past `rows` were truncated away; the child keeps only the elements before them.
    const childRows =
      rows === 0
        ? 0
        : (this.#entries[(rows - 1) * 4] as number) + (this.#entries[(rows - 1) * 4 + 2] as number);
    const values = this.#entries.buffer;
    if (detach) this.growValues(this.capacity, 0);
    return { values, rowBytes: 16, child: { data: this.#child.take(childRows, detach), rows: childRows } };
  }

  protected override setNull(row: number): void {
    // Entries of later rows are read from this one's end.
    this.#entries[row * 4] = this.#childRows;
    this.#entries[row * 4 + 2] = 0;
  }

  protected override clear(): void {
    this.#childRows = 0;
  }

  protected override recycleValues(data: ColumnData): void {
    super.recycleValues(data);
    if (data.child !== undefined) this.#child.recycle(data.child.data);
  }

  protected override truncateValues(rows: number): void {
    this.#childRows =
      rows === 0
        ? 0
        : (this.#entries[(rows - 1) * 4] as number) + (this.#entries[(rows - 1) * 4 + 2] as number);
    this.#child.truncate(this.#childRows);
  }

  protected growValues(capacity: number, kept: number): void {
    const entries = new Uint32Array(this.buffer(capacity * 16));
    entries.set(this.#entries.subarray(0, kept * 4));
    this.#entries = entries;
  }
}

/** MAP(VARCHAR, VARCHAR): a list of (key, value) structs; the value is a string record. */
class StringMapBuffer extends ColumnBuffer {
  readonly #list: ListBuffer;
  readonly #pairs: PairBuffer;

  constructor(capacity: number) {
    super(capacity);
    this.#pairs = new PairBuffer(capacity);
    this.#list = new ListBuffer(capacity, this.#pairs);
  }

  protected setValue(row: number, value: unknown): void {
    this.#list.set(row, Object.entries(value as Record<string, string>));
  }

  protected override setNull(row: number): void {
    this.#list.set(row, null);
  }

  protected override recycleValues(data: ColumnData): void {
    this.#list.recycle(data);
  }

  protected takeValues(rows: number, detach: boolean): ColumnData {
    return this.#list.take(rows, detach);
  }

  protected override truncateValues(rows: number): void {
    this.#list.truncate(rows);
  }

  protected growValues(): void {
    // The list grows itself.
  }
}

/** The struct child of a string map: key and value columns. */
class PairBuffer extends ColumnBuffer {
  readonly #keys: VarcharBuffer;
  readonly #values: VarcharBuffer;

  constructor(capacity: number) {
    super(capacity);
    this.#keys = new VarcharBuffer(capacity);
    this.#values = new VarcharBuffer(capacity);
  }

  protected setValue(row: number, value: unknown): void {
    const [key, entry] = value as [string, string];
    this.#keys.set(row, key);
    this.#values.set(row, entry);
  }

  protected takeValues(rows: number, detach: boolean): ColumnData {
    // No values of its own: a zero-length buffer keeps the shape of the data.
    return {
      values: new ArrayBuffer(0),
      rowBytes: 0,
      fields: [this.#keys.take(rows, detach), this.#values.take(rows, detach)],
    };
  }

  protected override truncateValues(rows: number): void {
    this.#keys.truncate(rows);
    this.#values.truncate(rows);
  }

  protected override recycleValues(data: ColumnData): void {
    const [keys, values] = data.fields ?? [];
    if (keys !== undefined) this.#keys.recycle(keys);
    if (values !== undefined) this.#values.recycle(values);
  }

  protected growValues(capacity: number, kept: number): void {
    this.#keys.reserve(capacity, kept);
    this.#values.reserve(capacity, kept);
  }
}

/** A buffer for a column of `type`, holding `capacity` rows. */
export function columnBuffer(type: SqlType, capacity: number): ColumnBuffer {
  switch (type) {
    case "VARCHAR":
      return new VarcharBuffer(capacity);
    case "BOOLEAN":
      return new BooleanBuffer(capacity);
    case "DOUBLE":
      return new FixedWidthBuffer(capacity, Float64Array);
    case "UBIGINT":
      return new U64Buffer(capacity);
    case "UINTEGER":
      return new FixedWidthBuffer(capacity, Uint32Array);
    case "UBIGINT[]":
      return new ListBuffer(capacity, new U64Buffer(capacity * 2));
    case "VARCHAR[]":
      return new ListBuffer(capacity, new VarcharBuffer(capacity * 2));
    case "MAP(VARCHAR, VARCHAR)":
      return new StringMapBuffer(capacity);
  }
}
