// The WebAssembly canonical decoder (wasm/canonical-decoder.c): compiled once per process from the
// embedded module, one instance (with its own memory) per reader, the layout table written into it.
// Where WebAssembly is missing, forbidden, or refuses a synchronous compile (a browser page's main
// thread may), there is no decoder and the JavaScript tiers read every line, with the same result.
import { CANONICAL_DECODER_MODULE } from "./canonical-decoder-module.generated.js";
import type { EventLayout, EventLayoutTable, WireType } from "./event-layouts.js";
import { elementArrayOf, rowArrayOf } from "./kind-columns.js";

/** The decoder's type codes (canonical-decoder.c); types without one make a kind unreadable. */
const TYPE_CODES: Partial<Record<WireType, number>> = {
  string: 0,
  enum: 1,
  u64: 2,
  boolean: 3,
  strings: 4,
  shape: 5,
  f64: 6,
};

/** Whether the decoder reads lines of `layout`: every field of a type it has a reader for. */
export function decoderReads(layout: EventLayout): boolean {
  return layout.fields.every((field) => TYPE_CODES[field.type] !== undefined);
}

interface DecoderExports {
  readonly memory: WebAssembly.Memory;
  decode(length: number): number;
  input(): number;
  lineStarts(): number;
  lineEnds(): number;
  lineKinds(): number;
  lineStageRows(): number;
  stringOffsets(): number;
  stringLengths(): number;
  layout(): number;
  pool(): number;
  inputCapacity(): number;
  lineCapacity(): number;
  stringCapacity(): number;
  layoutCapacity(): number;
  /**
   * Derives the decoder's index of kinds by first letter and its run tables from the layout table
   * just written; 0 when the table is too large for them.
   */
  indexLayout(): number;
  poolCapacity(): number;
  dictIds(): number;
  pendingIds(): number;
  lineRows(): number;
  runRows(): number;
  runStarts(): number;
  runBases(): number;
  firstField(): number;
  maxKinds(): number;
  stageColumn(field: number): number;
  stageOffsets(field: number): number;
  stageFlat(field: number): number;
  stageRows(): number;
  stageFlatCapacity(): number;
  forgetIds(): void;
  stageRun(first: number, count: number): number;
  finishRun(): void;
}

/** One decoder instance: `decode` fills the views below (they stay valid: the memory never grows). */
export interface CanonicalDecoder {
  /** Decodes the LF-terminated lines of `input[0, length)`; returns how many lines it recorded. */
  decode(length: number): number;
  readonly input: Uint8Array;
  readonly inputCapacity: number;
  /** Per line: its first byte, its LF, its kind code (-1: declined), its row in its kind's staged columns. */
  readonly lineStarts: Int32Array;
  readonly lineEnds: Int32Array;
  readonly lineKinds: Int32Array;
  readonly lineStageRows: Int32Array;
  /** Per string id of the last call: its bytes in `input`. */
  readonly stringOffsets: Int32Array;
  readonly stringLengths: Int32Array;
  /** The reader whose bytes the decoder holds (see `DecoderPool`); another's call overwrites them. */
  owner: object | undefined;
  /**
   * Per string id of the last call, its owner's id for it in its batch; negative while it has none
   * (each call's strings start without one).
   */
  readonly dictIds: Int32Array;
  /** Forgets every batch id in `dictIds` (the owner's batch has a new dictionary). */
  forgetIds(): void;
  /**
   * Prepares the commit of the `count` accepted lines from line `first`: returns how many of their
   * strings have no batch id yet, listed in `pendingIds` in the order the lines use them (the caller
   * sets their `dictIds` before `finishRun`), or -1 when a line of the run was declined. Counts the
   * run's rows per kind in `runRows`: they are staged side by side from `runStarts[kind]` on.
   */
  stageRun(first: number, count: number): number;
  readonly pendingIds: Int32Array;
  /**
   * Turns the prepared run's staged string ids into batch ids, and gives each line of the run its
   * row in its kind's columns in `lineRows`: `runBases[kind]` (set by the caller before) plus its
   * row in the run.
   */
  finishRun(): void;
  readonly runRows: Int32Array;
  readonly runStarts: Int32Array;
  readonly runBases: Int32Array;
  /** Per kind: the number of its first field (fields numbered over the layout table's kinds in order). */
  readonly firstFields: Int32Array;
  /**
   * Per field (by that number) of a kind the decoder reads: its staged values by row, typed as the
   * batch's column; for a list, its rows' element offsets (rows + 1) and its elements.
   */
  readonly stageColumns: readonly (Int32Array | Uint8Array | Float64Array | undefined)[];
  readonly stageOffsets: readonly (Int32Array | undefined)[];
  readonly stageFlat: readonly (Int32Array | Float64Array | undefined)[];
  readonly lineRows: Int32Array;
}

let compiled: WebAssembly.Module | null | undefined;

function decoderModule(): WebAssembly.Module | undefined {
  if (compiled === undefined) {
    try {
      // The builtin drives the loop: one written here ran long enough for V8 to compile it
      // mid-loop, and then threw that code away after it, once per process.
      const bytes = Uint8Array.from(atob(CANONICAL_DECODER_MODULE), (character) => character.charCodeAt(0));
      compiled = new WebAssembly.Module(bytes);
    } catch {
      compiled = null; // no WebAssembly, no SIMD, or no synchronous compile here
    }
  }
  return compiled ?? undefined;
}

/** Writes `layouts` into the decoder's layout table and pool; false when they do not fit. */
function writeLayouts(exports: DecoderExports, layouts: EventLayoutTable): boolean {
  const layout = new Int32Array(exports.memory.buffer, exports.layout(), exports.layoutCapacity());
  const pool = new Uint8Array(exports.memory.buffer, exports.pool(), exports.poolCapacity());
  const encoder = new TextEncoder();
  let poolEnd = 0;
  const ints: number[] = [];
  /** Appends the offset and length in the pool of `value`, added to the pool. */
  const text = (value: string): void => {
    const bytes = encoder.encode(value);
    if (poolEnd + bytes.length > pool.length) throw new RangeError("decoder pool full");
    pool.set(bytes, poolEnd);
    ints.push(poolEnd, bytes.length);
    poolEnd += bytes.length;
  };
  const kinds = Object.values(layouts);
  ints.push(kinds.length);
  for (const _ of kinds) ints.push(0);
  const variantsAt: { field: number; variants: readonly string[] }[] = [];
  kinds.forEach((kind, code) => {
    ints[1 + code] = ints.length;
    const readable = decoderReads(kind);
    text(kind.kind);
    ints.push(readable ? 1 : 0, kind.fields.length);
    // Per field: its key literal, type, whether optional, where its variants are and how many.
    for (const field of kind.fields) {
      const at = ints.length;
      text(`,${JSON.stringify(field.key)}:`);
      ints.push(TYPE_CODES[field.type] ?? -1, field.presence === "optional" ? 1 : 0, 0, 0);
      if (field.type === "enum") variantsAt.push({ field: at, variants: field.variants ?? [] });
    }
  });
  for (const { field, variants } of variantsAt) {
    ints[field + 4] = ints.length;
    ints[field + 5] = variants.length;
    for (const variant of variants) text(variant);
  }
  if (ints.length > layout.length) return false;
  layout.set(ints);
  return exports.indexLayout() === 1;
}

/** A decoder for `layouts`, or undefined where WebAssembly cannot be used (see the file comment). */
export function createCanonicalDecoder(layouts: EventLayoutTable): CanonicalDecoder | undefined {
  const module = decoderModule();
  if (module === undefined) return undefined;
  const exports = new WebAssembly.Instance(module, {}).exports as unknown as DecoderExports;
  try {
    if (!writeLayouts(exports, layouts)) return undefined;
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  const buffer = exports.memory.buffer;
  const lines = exports.lineCapacity();
  const strings = exports.stringCapacity();
  return {
    decode: (length) => exports.decode(length),
    input: new Uint8Array(buffer, exports.input(), exports.inputCapacity()),
    inputCapacity: exports.inputCapacity(),
    lineStarts: new Int32Array(buffer, exports.lineStarts(), lines),
    lineEnds: new Int32Array(buffer, exports.lineEnds(), lines),
    lineKinds: new Int32Array(buffer, exports.lineKinds(), lines),
    lineStageRows: new Int32Array(buffer, exports.lineStageRows(), lines),
    stringOffsets: new Int32Array(buffer, exports.stringOffsets(), strings),
    stringLengths: new Int32Array(buffer, exports.stringLengths(), strings),
    owner: undefined,
    dictIds: new Int32Array(buffer, exports.dictIds(), strings),
    forgetIds: () => exports.forgetIds(),
    stageRun: (first, count) => exports.stageRun(first, count),
    pendingIds: new Int32Array(buffer, exports.pendingIds(), strings),
    finishRun: () => exports.finishRun(),
    runRows: new Int32Array(buffer, exports.runRows(), exports.maxKinds()),
    runStarts: new Int32Array(buffer, exports.runStarts(), exports.maxKinds()),
    runBases: new Int32Array(buffer, exports.runBases(), exports.maxKinds()),
    firstFields: new Int32Array(buffer, exports.firstField(), exports.maxKinds()),
    ...stageViews(exports, layouts),
    lineRows: new Int32Array(buffer, exports.lineRows(), lines),
  };
}

/** The typed views of each field's staged columns, in the element types of the batch's columns. */
function stageViews(
  exports: DecoderExports,
  layouts: EventLayoutTable,
): Pick<CanonicalDecoder, "stageColumns" | "stageOffsets" | "stageFlat"> {
  const buffer = exports.memory.buffer;
  const rows = exports.stageRows();
  const elements = exports.stageFlatCapacity();
  const stageColumns: (Int32Array | Uint8Array | Float64Array | undefined)[] = [];
  const stageOffsets: (Int32Array | undefined)[] = [];
  const stageFlat: (Int32Array | Float64Array | undefined)[] = [];
  for (const layout of Object.values(layouts)) {
    for (const field of layout.fields) {
      const number = stageColumns.length;
      const column = exports.stageColumn(number);
      const list = exports.stageOffsets(number);
      const flat = exports.stageFlat(number);
      stageColumns.push(column === 0 ? undefined : new (rowArrayOf(field.type))(buffer, column, rows));
      stageOffsets.push(list === 0 ? undefined : new Int32Array(buffer, list, rows + 1));
      stageFlat.push(flat === 0 ? undefined : new (elementArrayOf(field.type))(buffer, flat, elements));
    }
  }
  return { stageColumns, stageOffsets, stageFlat };
}

/** Decoders kept per thread and layout table: enough for the readers a program runs side by side. */
const POOL_SIZE = 4;

/**
 * The decoders of one layout table, shared by the readers of a thread: a reader claims one when it
 * decodes and holds it until another reader claims it (the one used longest ago goes first). A
 * program that reads thousands of small traces one after another then makes four instances, not
 * thousands (each holds 5.6 MiB of memory, whose churn made a read of a 4 KB trace take a
 * millisecond more). A reader that lost its decoder decodes its piece again where it stands.
 */
export class DecoderPool {
  readonly #layouts: EventLayoutTable;
  readonly #decoders: CanonicalDecoder[] = [];
  /** Per decoder, when it was last claimed. */
  readonly #claimed: number[] = [];
  #clock = 0;
  #unavailable = false;

  constructor(layouts: EventLayoutTable) {
    this.#layouts = layouts;
  }

  /** A decoder now owned by `owner`, or undefined where there is none (see the file comment). */
  claim(owner: object): CanonicalDecoder | undefined {
    if (this.#unavailable) return undefined;
    let pick = this.#decoders.findIndex((decoder) => decoder.owner === undefined || decoder.owner === owner);
    if (pick < 0 && this.#decoders.length < POOL_SIZE) {
      const decoder = createCanonicalDecoder(this.#layouts);
      if (decoder === undefined) {
        this.#unavailable = true;
        return undefined;
      }
      pick = this.#decoders.push(decoder) - 1;
      this.#claimed.push(0);
    }
    if (pick < 0) {
      pick = 0;
      for (let at = 1; at < this.#decoders.length; at++) {
        if ((this.#claimed[at] as number) < (this.#claimed[pick] as number)) pick = at;
      }
    }
    const decoder = this.#decoders[pick] as CanonicalDecoder;
    decoder.owner = owner;
    this.#claimed[pick] = ++this.#clock;
    return decoder;
  }
}
