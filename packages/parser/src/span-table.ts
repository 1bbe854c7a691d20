// The spans of a streamed trace as columns, one row per span in order of its `span_start`: what
// health, the summary and the span tree need, in about 30 bytes per span plus its id and name
// bytes (see IdTable). A `SpanRecord` object per span cost about 200 bytes and, for millions of
// spans, most of a streaming summary's memory.
import { grownCopy } from "@cg/memory";
import {
  EXECUTION_STEPS,
  type ExecutionStep,
  SPAN_KINDS,
  type SpanEndEvent,
  type SpanKind,
  type SpanStartEvent,
  type U64,
} from "@cg/schema/core";
import { IdTable } from "./id-table.js";
import type { SpanRecord } from "./trace-document.js";

/** Parent column: the span has no parent. */
export const NO_PARENT = -1;
/** Parent column: the parent id names no span (yet); the id is kept in `missingParents`. */
export const MISSING_PARENT = -2;

const CLOSED = 1;
const MEASURED = 2;
const KIND_SHIFT = 2; // 2 bits: index into SPAN_KINDS
const STEP_SHIFT = 4; // 2 bits: 0 none, else 1 + index into EXECUTION_STEPS

/** Bytes per span of the columns below (not counting id and name bytes). */
export const SPAN_ROW_BYTES = 4 + 4 + 8 + 8 + 1;

export class SpanTable {
  /** Span ids; row i is the span with id index i (shared with the reader's duplicate check). */
  readonly ids: IdTable;
  readonly names = new IdTable();
  #parent = new Int32Array(1024);
  #name = new Int32Array(1024);
  #start = new Float64Array(1024);
  #duration = new Float64Array(1024);
  #flags = new Uint8Array(1024);
  /** Values above 2^53 − 1, by row (the Float64 columns hold NaN there). */
  readonly #bigStart = new Map<number, bigint>();
  readonly #bigDuration = new Map<number, bigint>();
  /** Parent ids that named no span when their child started, by child row. */
  readonly missingParents = new Map<number, string>();
  #rows = 0;

  constructor(ids: IdTable) {
    this.ids = ids;
  }

  get size(): number {
    return this.#rows;
  }

  /** True when some start or duration is above 2^53 − 1 (number arithmetic would round). */
  get hasBigValues(): boolean {
    return this.#bigStart.size > 0 || this.#bigDuration.size > 0;
  }

  /** Bytes held by the columns and both id tables. */
  get byteLength(): number {
    return (
      this.#parent.byteLength +
      this.#name.byteLength +
      this.#start.byteLength +
      this.#duration.byteLength +
      this.#flags.byteLength +
      this.ids.byteLength +
      this.names.byteLength
    );
  }

  /** Adds the span whose id has index `row` (rows arrive in order: 0, 1, 2, …). */
  start(row: number, event: SpanStartEvent): void {
    if (row !== this.#rows) throw new Error(`span table: row ${row} added out of order`);
    if (row >= this.#flags.length) this.#grow();
    this.#rows = row + 1;
    let parent = NO_PARENT;
    if (event.parent_id !== undefined) {
      parent = this.ids.get(event.parent_id);
      // A reader that interns ids ahead of the fold (the column reader) may know the parent's id
      // before its span started: not started yet is missing, as in file order.
      if (parent < 0 || parent >= this.#rows) {
        parent = MISSING_PARENT;
        this.missingParents.set(row, event.parent_id);
      }
    }
    this.#parent[row] = parent;
    this.#name[row] = this.names.intern(event.name);
    this.#setU64(this.#start, this.#bigStart, row, event.start_ns);
    this.#duration[row] = 0;
    const step = event.step === undefined ? 0 : 1 + EXECUTION_STEPS.indexOf(event.step);
    this.#flags[row] =
      (event.measured ? MEASURED : 0) |
      (SPAN_KINDS.indexOf(event.span_kind) << KIND_SHIFT) |
      (step << STEP_SHIFT);
  }

  end(row: number, event: SpanEndEvent): void {
    this.#flags[row] = (this.#flags[row] as number) | CLOSED;
    this.#setU64(this.#duration, this.#bigDuration, row, event.duration_ns);
  }

  /** Resolves parents that were named before their span started (call once all spans are in). */
  resolveParents(): void {
    for (const [row, parentId] of this.missingParents) {
      const parent = this.ids.get(parentId);
      if (parent >= 0) {
        this.#parent[row] = parent;
        this.missingParents.delete(row);
      }
    }
  }

  name(row: number): string {
    return this.names.valueAt(this.#name[row] as number);
  }

  parent(row: number): number {
    return this.#parent[row] as number;
  }

  closed(row: number): boolean {
    return ((this.#flags[row] as number) & CLOSED) !== 0;
  }

  measured(row: number): boolean {
    return ((this.#flags[row] as number) & MEASURED) !== 0;
  }

  kind(row: number): SpanKind {
    return SPAN_KINDS[((this.#flags[row] as number) >> KIND_SHIFT) & 3] as SpanKind;
  }

  step(row: number): ExecutionStep | undefined {
    const step = ((this.#flags[row] as number) >> STEP_SHIFT) & 3;
    return step === 0 ? undefined : EXECUTION_STEPS[step - 1];
  }

  /** Start as a number; NaN when above 2^53 − 1 (see `startBig`). */
  startNumber(row: number): number {
    return this.#start[row] as number;
  }

  durationNumber(row: number): number {
    return this.#duration[row] as number;
  }

  startU64(row: number): U64 {
    return this.#bigStart.get(row) ?? (this.#start[row] as number);
  }

  durationU64(row: number): U64 {
    return this.#bigDuration.get(row) ?? (this.#duration[row] as number);
  }

  /** The span as a document record (for results and messages; not per span in a hot loop). */
  record(row: number): SpanRecord {
    const record: SpanRecord = {
      id: this.ids.valueAt(row),
      name: this.names.valueAt(this.#name[row] as number),
      kind: this.kind(row),
      measured: this.measured(row),
      start_ns: this.startU64(row),
      closed: this.closed(row),
      duration_ns: this.durationU64(row),
    };
    const parent = this.#parent[row] as number;
    if (parent >= 0) record.parent_id = this.ids.valueAt(parent);
    else if (parent === MISSING_PARENT) record.parent_id = this.missingParents.get(row) as string;
    const step = this.step(row);
    if (step !== undefined) record.step = step;
    return record;
  }

  #setU64(column: Float64Array, big: Map<number, bigint>, row: number, value: U64): void {
    if (typeof value === "bigint") {
      column[row] = Number.NaN;
      big.set(row, value);
    } else {
      column[row] = value;
      big.delete(row);
    }
  }

  #grow(): void {
    const capacity = this.#flags.length * 2;
    this.#parent = grownCopy(this.#parent, capacity);
    this.#name = grownCopy(this.#name, capacity);
    this.#start = grownCopy(this.#start, capacity);
    this.#duration = grownCopy(this.#duration, capacity);
    this.#flags = grownCopy(this.#flags, capacity);
  }
}
