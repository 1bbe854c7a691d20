// One column of a data chunk being filled, held in typed arrays laid out as DuckDB's vectors are
// (C API `duckdb.h`: u64/u32/f64/bool values, 16-byte `duckdb_string_t`, list entries of offset and
// length, a validity bitmask of 64-bit words) and copied into the chunk's vector in one call when
// the chunk is handed to the appender. No value object per cell: a number is split into two 32-bit
// words, a short ASCII string is written inline; only strings longer than 12 bytes or not ASCII go
// through one native call each.
import duckdb from "@duckdb/node-bindings";
import type { SqlType } from "./event-columns.js";

const TWO_TO_32 = 4_294_967_296;
/** Longest string DuckDB stores inside its 16-byte string record. */
const INLINE_BYTES = 12;
const utf8 = new TextEncoder();

/** Bytes of validity mask for `rows` rows: whole 64-bit words. */
function validityBytes(rows: number): number {
  return Math.ceil(rows / 64) * 8;
}

export abstract class ColumnBuffer {
  /** Rows the typed arrays hold now (grows for list children). */
  protected capacity: number;
  #validity: Uint8Array<ArrayBuffer>;
  #hasNull = false;

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

  /** Copies the first `rows` rows into `vector` and starts over. */
  write(vector: duckdb.Vector, rows: number): void {
    this.writeValues(vector, rows);
    if (this.#hasNull) {
      duckdb.vector_ensure_validity_writable(vector);
      duckdb.copy_data_to_vector_validity(vector, 0, this.#validity.buffer, 0, validityBytes(rows));
      this.#validity.fill(0xff);
      this.#hasNull = false;
    }
    this.clear();
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
  protected abstract writeValues(vector: duckdb.Vector, rows: number): void;
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

  protected writeValues(vector: duckdb.Vector, rows: number): void {
    duckdb.copy_data_to_vector(vector, 0, this.#words.buffer, 0, rows * 8);
  }

  protected growValues(capacity: number, kept: number): void {
    const words = new Uint32Array(capacity * 2);
    words.set(this.#words.subarray(0, kept * 2));
    this.#words = words;
    this.#wide = new BigUint64Array(words.buffer);
  }
}

type FixedWidthArray = Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer> | Uint8Array<ArrayBuffer>;

/** UINTEGER, DOUBLE, BOOLEAN: one typed-array element per value, as DuckDB stores them. */
class FixedWidthBuffer extends ColumnBuffer {
  protected values: FixedWidthArray;
  readonly #create: (length: number) => FixedWidthArray;

  constructor(capacity: number, create: (length: number) => FixedWidthArray) {
    super(capacity);
    this.#create = create;
    this.values = create(capacity);
  }

  protected setValue(row: number, value: unknown): void {
    this.values[row] = value as number;
  }

  protected writeValues(vector: duckdb.Vector, rows: number): void {
    duckdb.copy_data_to_vector(vector, 0, this.values.buffer, 0, rows * this.values.BYTES_PER_ELEMENT);
  }

  protected growValues(capacity: number, kept: number): void {
    const values = this.#create(capacity);
    values.set(this.values.subarray(0, kept));
    this.values = values;
  }
}

class BooleanBuffer extends FixedWidthBuffer {
  constructor(capacity: number) {
    super(capacity, (length) => new Uint8Array(length));
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

  protected writeValues(vector: duckdb.Vector, rows: number): void {
    duckdb.copy_data_to_vector(vector, 0, this.#records.buffer, 0, rows * 16);
    const outOfLineRows = this.#outOfLineRows;
    const outOfLineValues = this.#outOfLineValues;
    for (let index = 0; index < outOfLineRows.length; index++) {
      const row = outOfLineRows[index] as number;
      if (row < rows) {
        // By length, not as a C string: a value may hold U+0000.
        duckdb.vector_assign_string_element_len(vector, row, utf8.encode(outOfLineValues[index] as string));
      }
    }
  }

  protected override clear(): void {
    this.#outOfLineRows.length = 0;
    this.#outOfLineValues.length = 0;
  }

  protected override truncateValues(rows: number): void {
    let kept = 0;
    while (kept < this.#outOfLineRows.length && (this.#outOfLineRows[kept] as number) < rows) kept++;
    this.#outOfLineRows.length = kept;
    this.#outOfLineValues.length = kept;
  }

  protected growValues(capacity: number, kept: number): void {
    const records = new Uint8Array(capacity * 16);
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
    const offset = this.#childRows;
    const length = items.length;
    this.#entries[row * 4] = offset;
    this.#entries[row * 4 + 2] = length;
    const child = this.#child;
    child.reserve(offset + length, offset);
    for (let index = 0; index < length; index++) child.set(offset + index, items[index]);
    this.#childRows = offset + length;
  }

  protected writeValues(vector: duckdb.Vector, rows: number): void {
    // Rows past `rows` were truncated away; the child keeps only the elements before them.
    const childRows =
      rows === 0
        ? 0
        : (this.#entries[(rows - 1) * 4] as number) + (this.#entries[(rows - 1) * 4 + 2] as number);
    duckdb.copy_data_to_vector(vector, 0, this.#entries.buffer, 0, rows * 16);
    duckdb.list_vector_reserve(vector, childRows);
    duckdb.list_vector_set_size(vector, childRows);
    this.#child.write(duckdb.list_vector_get_child(vector), childRows);
  }

  protected override setNull(row: number): void {
    // Entries of later rows are read from this one's end.
    this.#entries[row * 4] = this.#childRows;
    this.#entries[row * 4 + 2] = 0;
  }

  protected override clear(): void {
    this.#childRows = 0;
  }

  protected override truncateValues(rows: number): void {
    this.#childRows =
      rows === 0
        ? 0
        : (this.#entries[(rows - 1) * 4] as number) + (this.#entries[(rows - 1) * 4 + 2] as number);
    this.#child.truncate(this.#childRows);
  }

  protected growValues(capacity: number, kept: number): void {
    const entries = new Uint32Array(capacity * 4);
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

  protected writeValues(vector: duckdb.Vector, rows: number): void {
    this.#list.write(vector, rows);
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

  protected writeValues(vector: duckdb.Vector, rows: number): void {
    this.#keys.write(duckdb.struct_vector_get_child(vector, 0), rows);
    this.#values.write(duckdb.struct_vector_get_child(vector, 1), rows);
  }

  protected override truncateValues(rows: number): void {
    this.#keys.truncate(rows);
    this.#values.truncate(rows);
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
      return new FixedWidthBuffer(capacity, (length) => new Float64Array(length));
    case "UBIGINT":
      return new U64Buffer(capacity);
    case "UINTEGER":
      return new FixedWidthBuffer(capacity, (length) => new Uint32Array(length));
    case "UBIGINT[]":
      return new ListBuffer(capacity, new U64Buffer(capacity * 2));
    case "VARCHAR[]":
      return new ListBuffer(capacity, new VarcharBuffer(capacity * 2));
    case "MAP(VARCHAR, VARCHAR)":
      return new StringMapBuffer(capacity);
  }
}
