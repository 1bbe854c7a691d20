// A bounded batch of decoded events held as columns: per kind, typed columns derived from the
// layout table (kind-columns.ts); per event in file order, its kind, its row in that kind's
// columns, its line and record index; strings once each in the batch's own dictionary. A batch is
// reused (cleared and refilled) and its typed arrays can be transferred to another thread
// (`toMessage` / `ColumnBatch.fromMessage`). The canonical byte reader fills it straight from the
// UTF-8 bytes (canonical-column-reader.ts); events from the text tiers are appended with
// `appendEvent`. `event(i)` rebuilds an event object for consumers that want one.
import { type ColumnEventBuilder, compileColumnEventBuilders } from "./column-event-source.js";
import { EVENT_LAYOUTS, type EventLayoutTable } from "./event-layouts.js";
import type { TraceEvent } from "./events.js";
import type { SourceCompiler } from "./generated-function.js";
import {
  ABSENT_ENUM,
  ABSENT_ID,
  ABSENT_U64,
  EXACT_U64,
  type FieldColumn,
  KindColumns,
} from "./kind-columns.js";
import { ShortStringIds, shortStringWords } from "./short-string-ids.js";
import type { U64 } from "./u64.js";

const INITIAL_EVENTS = 256;
/** Dictionary generations, unique in the process (int32 for the cursor's notes). */
let lastGeneration = 0;

function newGeneration(): number {
  lastGeneration = (lastGeneration + 1) & 0x7fffffff;
  return lastGeneration;
}

/** The event builders of each layout table, compiled once per table. */
const builders = new WeakMap<EventLayoutTable, ColumnEventBuilder[] | undefined>();

function buildersOf(layouts: EventLayoutTable): ColumnEventBuilder[] | undefined {
  if (!builders.has(layouts)) builders.set(layouts, compileColumnEventBuilders(layouts));
  return builders.get(layouts);
}

/** The columns of a batch as plain data, for `postMessage` (typed arrays transferable). */
export interface ColumnBatchMessage {
  size: number;
  kinds: Uint8Array;
  rows: Int32Array;
  lines: Float64Array;
  indexes: Float64Array;
  strings: string[];
  /** The events appended from the text tiers, by position. */
  decoded: (TraceEvent | undefined)[];
  columns: {
    size: number;
    fields: Pick<FieldColumn, "values" | "offsets" | "flat" | "exact" | "maps">[];
  }[];
}

/** An empty array whose elements V8 already holds as references, as strings are held. */
const NO_STRINGS: string[] = [""];
NO_STRINGS.length = 0;

/**
 * A new, empty dictionary of its own. An empty array literal starts out as an array of small
 * integers, and the first string pushed changes its kind: the interning code V8 had optimized on
 * the dictionary of the batch before was then thrown away at the first string of the next (one
 * deoptimization and a recompile of the reader's interning path per cold read). A copy of an empty
 * array of references is of the kind the dictionary stays.
 */
function emptyDictionary(): string[] {
  return NO_STRINGS.slice();
}

export class ColumnBatch {
  readonly layouts: EventLayoutTable;
  /** Per kind code (the layout table's order), its columns. */
  readonly columns: readonly KindColumns[];
  /** Events in the batch. */
  size = 0;
  /** Per event in file order: kind code, row in that kind's columns, 1-based line, record index. */
  kinds: Uint8Array = new Uint8Array(INITIAL_EVENTS);
  rows: Int32Array = new Int32Array(INITIAL_EVENTS);
  lines: Float64Array = new Float64Array(INITIAL_EVENTS);
  indexes: Float64Array = new Float64Array(INITIAL_EVENTS);
  /** The batch's string dictionary: string columns hold indexes into it. */
  strings: string[] = emptyDictionary();
  /** Ids of the longer strings (and of those not ASCII). */
  readonly #ids = new Map<string, number>();
  /** Ids of the short ASCII strings, by their bytes. */
  readonly #short = new ShortStringIds();
  readonly #words = new Int32Array(3);
  /** Whether `clearEvents` was called (its first call restarts the dictionary). */
  #eventsCleared = false;
  /** Received from another thread: the dictionary's strings are not indexed yet. */
  #unindexed = false;
  /**
   * The events appended from the text tiers, by position: `event(at)` returns them as they came
   * (their key order is the line's, which a consumer spreading an event shows).
   */
  #decoded: (TraceEvent | undefined)[] = [];
  /** Changes with every clear (unique across batches): what a reader noted for one dictionary. */
  generation = newGeneration();
  readonly #codes: ReadonlyMap<string, number>;
  readonly #builders: ColumnEventBuilder[] | undefined;

  /** `compile`: how the event builders are compiled (default: once per table, the Function constructor). */
  constructor(layouts: EventLayoutTable = EVENT_LAYOUTS, compile?: SourceCompiler) {
    this.layouts = layouts;
    this.columns = Object.values(layouts).map((layout, code) => new KindColumns(layout, code));
    this.#codes = new Map(this.columns.map((columns) => [columns.kind, columns.code]));
    this.#builders =
      compile === undefined ? buildersOf(layouts) : compileColumnEventBuilders(layouts, compile);
    // Cleared once at birth, so that V8 sees the fields a clear rewrites (the dictionary, its short
    // ids' stamp, the generation) rewritten before it optimizes code on them: the code it compiles
    // during the first batch then stays valid when the second begins, where its first compile of
    // the interning path was abandoned.
    this.clear();
  }

  /** The kind code of `kind` (its position in the layout table), or -1. */
  code(kind: string): number {
    return this.#codes.get(kind) ?? -1;
  }

  /** The columns of `kind`. */
  of(kind: string): KindColumns {
    const columns = this.columns[this.code(kind)];
    if (columns === undefined) throw new RangeError(`no columns for kind ${JSON.stringify(kind)}`);
    return columns;
  }

  /** The dictionary id of `text`, added when new. */
  intern(text: string): number {
    if (this.#unindexed) this.#indexReceived();
    const words = this.#words;
    if (shortStringWords(text, words)) {
      return this.#shortId(text, text.length, words[0] as number, words[1] as number, words[2] as number);
    }
    let id = this.#ids.get(text);
    if (id === undefined) {
      id = this.#add(text);
      this.#ids.set(text, id);
    }
    return id;
  }

  /**
   * The dictionary id of a short ASCII `text` whose length and words (as `shortStringWords` makes
   * them) are `keys[at..at+3]`: the canonical reader's cache holds them, so no word is computed again.
   */
  internKey(text: string, keys: Int32Array, at: number): number {
    if (this.#unindexed) this.#indexReceived();
    return this.#shortId(
      text,
      keys[at] as number,
      keys[at + 1] as number,
      keys[at + 2] as number,
      keys[at + 3] as number,
    );
  }

  #shortId(text: string, length: number, word0: number, word1: number, word2: number): number {
    const short = this.#short;
    let id = short.find(length, word0, word1, word2);
    if (id < 0) {
      id = this.#add(text);
      short.insert(length, word0, word1, word2, id);
    }
    return id;
  }

  /** Finds the received dictionary's strings by their text from now on (see `fromMessage`). */
  #indexReceived(): void {
    this.#unindexed = false;
    const words = this.#words;
    for (const [id, text] of this.strings.entries()) {
      if (!shortStringWords(text, words)) this.#ids.set(text, id);
      else if (
        this.#short.find(text.length, words[0] as number, words[1] as number, words[2] as number) < 0
      ) {
        this.#short.insert(text.length, words[0] as number, words[1] as number, words[2] as number, id);
      }
    }
  }

  #add(text: string): number {
    const id = this.strings.length;
    this.strings.push(text);
    return id;
  }

  /** Adds the row just committed in the columns of kind `code` as the next event. */
  push(code: number, line: number, index: number): void {
    const at = this.size;
    if (at >= this.kinds.length) this.#grow();
    this.kinds[at] = code;
    this.rows[at] = (this.columns[code] as KindColumns).size - 1;
    this.lines[at] = line;
    this.indexes[at] = index;
    this.size = at + 1;
  }

  /**
   * Room for `count` more events; returns the position of the first. A caller appending a run of
   * events whose rows it committed to the columns itself fills `kinds`, `rows`, `lines` and
   * `indexes` from there, then sets `size`.
   */
  reserveEvents(count: number): number {
    const at = this.size;
    while (at + count > this.kinds.length) this.#grow();
    return at;
  }

  /** Takes back the last event (its row too): the ordering rules refused it. */
  dropLast(): void {
    if (this.size === 0) return;
    this.size--;
    (this.columns[this.kinds[this.size] as number] as KindColumns).dropLast();
    if (this.#decoded.length > this.size) this.#decoded.length = this.size;
  }

  /** Empties the batch for reuse; buffers are kept, the dictionary starts afresh. */
  clear(): void {
    this.#clearEvents();
    this.strings = emptyDictionary();
    this.#unindexed = false;
    this.#ids.clear();
    this.#short.clear();
    this.generation = newGeneration();
  }

  /**
   * Empties the batch of its events but keeps its dictionary, ids and generation while it holds at
   * most `maxStrings` strings (beyond that, `clear`). For an owner that turns every batch into
   * event objects before the next one and lends the dictionary to nobody: small batches that each
   * restarted the dictionary interned the same names and ids again, batch after batch.
   */
  clearEvents(maxStrings: number): void {
    // The first call restarts the dictionary whatever its size: the restart has then run before V8
    // optimizes the owner's loop, which it would otherwise throw away at the first restart.
    if (this.strings.length > maxStrings || !this.#eventsCleared) {
      this.#eventsCleared = true;
      this.clear();
    } else {
      this.#clearEvents();
    }
  }

  #clearEvents(): void {
    this.size = 0;
    for (const columns of this.columns) columns.clear();
    if (this.#decoded.length > 0) this.#decoded = [];
  }

  /** Appends an event decoded elsewhere (the text tiers), values normalised as the wire says. */
  appendEvent(event: TraceEvent, line: number, index: number): void {
    const code = this.code(event.kind);
    const columns = this.columns[code];
    if (columns === undefined) throw new RangeError(`no columns for kind ${JSON.stringify(event.kind)}`);
    const row = columns.open();
    const record = event as unknown as Readonly<Record<string, unknown>>;
    for (const field of columns.fields) this.#write(field, row, record[field.key]);
    columns.commit();
    this.push(code, line, index);
    this.#decoded[this.size - 1] = event;
  }

  #write(field: FieldColumn, row: number, value: unknown): void {
    switch (field.type) {
      case "string":
        field.values[row] = value === undefined ? ABSENT_ID : this.intern(value as string);
        return;
      case "enum":
        field.values[row] =
          value === undefined ? ABSENT_ENUM : (field.variants as string[]).indexOf(value as string);
        return;
      case "boolean":
        field.values[row] = value === true ? 1 : 0;
        return;
      case "f64":
        field.values[row] = value === undefined ? Number.NaN : (value as number);
        return;
      case "u64":
        field.values[row] = value === undefined ? ABSENT_U64 : exactNumber(field, row, value as U64);
        return;
      case "strings":
        for (const text of value as string[]) {
          // The slot first: taking it may grow (replace) the flat array.
          const at = KindColumns.flatSlot(field);
          field.flat[at] = this.intern(text);
        }
        return;
      case "shape":
        for (const size of value as U64[]) {
          const at = KindColumns.flatSlot(field);
          field.flat[at] = exactNumber(field, at, size);
        }
        return;
      case "string_map":
        field.maps[row] = value as Record<string, string>;
        return;
    }
  }

  /** The u64 at `row` of `field` (undefined when absent). */
  u64(field: FieldColumn, row: number): U64 | undefined {
    const value = field.values[row] as number;
    if (value >= 0) return value;
    return value === EXACT_U64 ? (field.exact.get(row) as bigint) : undefined;
  }

  /** The string at `row` of a string column (undefined when absent). */
  string(field: FieldColumn, row: number): string | undefined {
    const id = field.values[row] as number;
    return id === ABSENT_ID ? undefined : (this.strings[id] as string);
  }

  /** The event at position `at` as an object, keys in table order (absent optional keys left out). */
  event(at: number): TraceEvent {
    if (this.#decoded.length > at) {
      const decoded = this.#decoded[at];
      if (decoded !== undefined) return decoded;
    }
    return this.columnEvent(at);
  }

  /** The event at position `at` built from the columns alone, keys in table order. */
  columnEvent(at: number): TraceEvent {
    const code = this.kinds[at] as number;
    const columns = this.columns[code] as KindColumns;
    const row = this.rows[at] as number;
    const build = this.#builders?.[code];
    if (build !== undefined) return build(columns, row, this.strings);
    // Where code generation is forbidden: the same event, built key by key.
    const event: Record<string, unknown> = { kind: columns.kind };
    for (const field of columns.fields) {
      const value = this.value(field, row);
      if (value !== undefined) event[field.key] = value;
    }
    return event as unknown as TraceEvent;
  }

  /**
   * One field's value at `row` as the event object holds it (undefined when absent): a consumer
   * that needs a few fields, or copies them elsewhere, reads them without building the event.
   */
  value(field: FieldColumn, row: number): unknown {
    switch (field.type) {
      case "string":
        return this.string(field, row);
      case "enum": {
        const index = field.values[row] as number;
        return index === ABSENT_ENUM ? undefined : (field.variants as readonly string[])[index];
      }
      case "boolean":
        return field.values[row] === 1;
      case "f64": {
        const value = field.values[row] as number;
        return Number.isNaN(value) ? undefined : value;
      }
      case "u64":
        return this.u64(field, row);
      case "strings": {
        const values: string[] = [];
        for (let at = field.offsets[row] as number; at < (field.offsets[row + 1] as number); at++) {
          values.push(this.strings[field.flat[at] as number] as string);
        }
        return values;
      }
      case "shape": {
        const values: U64[] = [];
        for (let at = field.offsets[row] as number; at < (field.offsets[row + 1] as number); at++) {
          const size = field.flat[at] as number;
          values.push(size === EXACT_U64 ? (field.exact.get(at) as bigint) : size);
        }
        return values;
      }
      case "string_map":
        return field.maps[row];
    }
  }

  /**
   * The batch as plain data (shares the buffers), and the buffers to list for a transfer. A
   * transfer detaches them: transfer a batch that is not filled again (a reader's reused batch is;
   * post a copy of its message instead).
   */
  toMessage(): { message: ColumnBatchMessage; transfer: ArrayBufferLike[] } {
    const transfer: ArrayBufferLike[] = [
      this.kinds.buffer,
      this.rows.buffer,
      this.lines.buffer,
      this.indexes.buffer,
    ];
    for (const columns of this.columns) columns.buffers(transfer);
    return {
      message: {
        size: this.size,
        kinds: this.kinds,
        rows: this.rows,
        lines: this.lines,
        indexes: this.indexes,
        strings: this.strings,
        decoded: this.#decoded,
        columns: this.columns.map((columns) => ({
          size: columns.size,
          fields: columns.fields.map(({ values, offsets, flat, exact, maps }) => ({
            values,
            offsets,
            flat,
            exact,
            maps,
          })),
        })),
      },
      transfer,
    };
  }

  /** A batch over the columns of a message (received from another thread); `layouts` as the sender's. */
  static fromMessage(message: ColumnBatchMessage, layouts: EventLayoutTable = EVENT_LAYOUTS): ColumnBatch {
    const batch = new ColumnBatch(layouts);
    batch.size = message.size;
    batch.kinds = message.kinds;
    batch.rows = message.rows;
    batch.lines = message.lines;
    batch.indexes = message.indexes;
    batch.strings = message.strings;
    batch.#decoded = message.decoded;
    // The dictionary is indexed when something is interned (a received batch is mostly only read).
    batch.#unindexed = message.strings.length > 0;
    message.columns.forEach((received, code) => {
      const columns = batch.columns[code] as KindColumns;
      columns.adopt(received.size, received.fields);
      for (const field of columns.fields) {
        if (field.type !== "string_map") continue;
        for (const map of field.maps) withoutPrototype(map);
        for (const event of message.decoded) {
          if (event?.kind === columns.kind) {
            withoutPrototype((event as unknown as Record<string, object | undefined>)[field.key]);
          }
        }
      }
    });
    return batch;
  }

  #grow(): void {
    const length = this.kinds.length * 2;
    const kinds = new Uint8Array(length);
    kinds.set(this.kinds);
    this.kinds = kinds;
    const rows = new Int32Array(length);
    rows.set(this.rows);
    this.rows = rows;
    const lines = new Float64Array(length);
    lines.set(this.lines);
    this.lines = lines;
    const indexes = new Float64Array(length);
    indexes.set(this.indexes);
    this.indexes = indexes;
  }
}

/**
 * A string map after a structured clone, back without a prototype as the decoders make it (so no
 * key, `__proto__` included, is special); the clone gives it Object.prototype.
 */
function withoutPrototype(map: object | undefined): void {
  if (map !== undefined && Object.getPrototypeOf(map) !== null) Object.setPrototypeOf(map, null);
}

/** `value` as a column number: itself when safe, else EXACT_U64 with the bigint kept in `field.exact`. */
function exactNumber(field: FieldColumn, at: number, value: U64): number {
  if (typeof value === "number") return value;
  field.exact.set(at, value);
  return EXACT_U64;
}
