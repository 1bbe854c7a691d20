// What attribution needs of one trace, collected the same way from a document, a stream or the
// report's reader: own time per span path, op time per (span path, op signature), and what was live
// at the memory peak per (span path, category, op). Sizes follow distinct paths and signatures and
// the allocations live at the peak, never the number of events.
import type { MemoryAnalysis } from "@cg/memory";
import type { ColumnBatch, FieldColumn, KindColumns, MemoryCategory, U64 } from "@cg/schema/core";
import { OP_CODE, OP_FIELD, ShapeText } from "./op-columns.js";
import { formatShape } from "./operator-stats.js";

/** An exact sum of u64 values: doubles while safe, a bigint beyond. */
export class ExactSum {
  #low = 0;
  #high = 0n;

  add(value: U64): void {
    if (typeof value === "bigint") {
      this.#high += value;
    } else if (this.#low > Number.MAX_SAFE_INTEGER - value) {
      this.#high += BigInt(this.#low) + BigInt(value);
      this.#low = 0;
    } else {
      this.#low += value;
    }
  }

  get value(): bigint {
    return this.#high + BigInt(this.#low);
  }
}

/** Op time of one (span path, op signature) pair. */
export interface OpPartSide {
  span: string;
  signature: string;
  op_name: string;
  calls: number;
  ns: bigint;
}

/** Bytes live at the peak that one (span path, category, op) allocated. */
export interface MemoryPartSide {
  span: string;
  category: MemoryCategory;
  /** The allocating op, `""` when the event names none. */
  op: string;
  bytes: bigint;
  allocations: number;
  largest: { tensor_id: string; bytes: bigint };
}

export interface PeakSide {
  bytes: bigint;
  device: string;
  timestamp_ns: bigint;
  /** Every span path key of the trace (a span holding nothing at the peak still matches). */
  spans: Set<string>;
  /** The span path of the allocation that reached the peak (the newest live one), if any. */
  span?: string;
  /** By `memoryPartKey`. */
  parts: Map<string, MemoryPartSide>;
}

/** One trace's attribution inputs (see `AttributionSideBuilder`). */
export interface AttributionSide {
  /** The measured total (as `ComparisonSide.total_ns`). */
  total_ns: bigint;
  /** Own (self) time of the measured subtree's spans, by span path key. */
  span_self: Map<string, bigint>;
  /** Own op time of the measured subtree's spans: one part per (span path key, op signature). */
  ops: OpPartSide[];
  peak: PeakSide;
}

/** `matmul [32, 64] f32 cpu`: op name, shape, dtype and device. */
export function opSignature(op: { op_name: string; shape: readonly U64[]; dtype: string; device: string }) {
  return signatureText(op.op_name, formatShape(op.shape), op.dtype, op.device);
}

/** `opSignature` of an op's values, its shape already as `formatShape` writes it. */
const signatureText = (opName: string, shape: string, dtype: string, device: string): string =>
  `${opName} ${shape} ${dtype} ${device}`;

export const memoryPartKey = (span: string, category: string, op: string): string =>
  `${span}\u0000${category}\u0000${op}`;

/** The op fields a side reads. */
export interface AttributedOp {
  op_name: string;
  shape: readonly U64[];
  dtype: string;
  device: string;
  duration_ns: U64;
}

interface OpAccumulator {
  calls: number;
  ns: ExactSum;
}

/** A signature's ops, by span path key: no string is made per (span, signature) pair. */
interface SignatureOps {
  signature: string;
  op_name: string;
  bySpan: Map<string, OpAccumulator>;
}

/**
 * The signatures of one op name: looked up field by field (no key string made per op), listed in
 * the order they were first seen.
 */
interface OpNameSignatures {
  list: SignatureOps[];
  byShape: Map<string, Map<string, Map<string, SignatureOps>>>;
}

/**
 * Collects one side. Ops are added under their span's path key whether or not the span is in the
 * measured subtree (a stream does not know yet); `finish` keeps the keys of measured-subtree spans.
 */
export class AttributionSideBuilder {
  readonly #self = new Map<string, ExactSum>();
  /** Signatures by op name, then by shape, dtype and device: one string per distinct signature. */
  readonly #signatures = new Map<string, OpNameSignatures>();
  readonly #shapeText = new ShapeText();

  /** A span of the measured subtree and its own time. */
  addSpan(key: string, selfNs: U64): void {
    let sum = this.#self.get(key);
    if (sum === undefined) {
      sum = new ExactSum();
      this.#self.set(key, sum);
    }
    sum.add(selfNs);
  }

  /** An op of a span whose path key is `key`. */
  addOp(key: string, op: AttributedOp): void {
    this.addOpValues(key, op.op_name, formatShape(op.shape), op.dtype, op.device, op.duration_ns);
  }

  /** `addOp` of the op in row `row` of `batch`'s op columns, read without an event object. */
  addOpRow(key: string, batch: ColumnBatch, row: number): void {
    const fields = (batch.columns[OP_CODE] as KindColumns).fields;
    const strings = batch.strings;
    this.addOpValues(
      key,
      strings[(fields[OP_FIELD.op_name] as FieldColumn).values[row] as number] as string,
      this.#shapeText.of(fields[OP_FIELD.shape] as FieldColumn, row),
      strings[(fields[OP_FIELD.dtype] as FieldColumn).values[row] as number] as string,
      strings[(fields[OP_FIELD.device] as FieldColumn).values[row] as number] as string,
      batch.u64(fields[OP_FIELD.duration_ns] as FieldColumn, row) as U64,
    );
  }

  /** `addOp` from an op's values, its shape as `formatShape` writes it (a column reader's op). */
  addOpValues(key: string, opName: string, shape: string, dtype: string, device: string, ns: U64): void {
    const bySpan = this.#signature(opName, shape, dtype, device).bySpan;
    let part = bySpan.get(key);
    if (part === undefined) {
      part = { calls: 0, ns: new ExactSum() };
      bySpan.set(key, part);
    }
    part.calls++;
    part.ns.add(ns);
  }

  #signature(opName: string, shape: string, dtype: string, device: string): SignatureOps {
    let named = this.#signatures.get(opName);
    if (named === undefined) {
      named = { list: [], byShape: new Map() };
      this.#signatures.set(opName, named);
    }
    let byDtype = named.byShape.get(shape);
    if (byDtype === undefined) {
      byDtype = new Map();
      named.byShape.set(shape, byDtype);
    }
    let byDevice = byDtype.get(dtype);
    if (byDevice === undefined) {
      byDevice = new Map();
      byDtype.set(dtype, byDevice);
    }
    let signature = byDevice.get(device);
    if (signature === undefined) {
      signature = {
        signature: signatureText(opName, shape, dtype, device),
        op_name: opName,
        bySpan: new Map(),
      };
      byDevice.set(device, signature);
      named.list.push(signature);
    }
    return signature;
  }

  /**
   * The side. `spanKeyOf` names an allocation's span (any id, also one naming no span), `spanKeys`
   * are every span's path key; only the peak device's live allocations are decomposed (the peak is
   * one device's total).
   */
  finish(
    totalNs: U64,
    memory: Pick<MemoryAnalysis, "peak_bytes" | "peak_device" | "peak_timestamp_ns" | "peak_breakdown">,
    spanKeyOf: (spanId: string) => string,
    spanKeys: Iterable<string>,
  ): AttributionSide {
    const spanSelf = new Map<string, bigint>();
    for (const [key, sum] of this.#self) spanSelf.set(key, sum.value);
    const ops: OpPartSide[] = [];
    for (const named of this.#signatures.values()) {
      for (const { signature, op_name, bySpan } of named.list) {
        for (const [span, part] of bySpan) {
          if (!spanSelf.has(span)) continue;
          ops.push({ span, signature, op_name, calls: part.calls, ns: part.ns.value });
        }
      }
    }
    const parts = new Map<string, MemoryPartSide>();
    let newest: { timestamp: bigint; span: string } | undefined;
    const peakBytes = BigInt(memory.peak_bytes);
    const keys = new Map<string, string>();
    for (const allocation of memory.peak_breakdown) {
      if (peakBytes === 0n || allocation.device !== memory.peak_device) continue;
      let span = keys.get(allocation.span_id);
      if (span === undefined) {
        span = spanKeyOf(allocation.span_id);
        keys.set(allocation.span_id, span);
      }
      const op = allocation.op_name ?? "";
      const key = memoryPartKey(span, allocation.category, op);
      const bytes = BigInt(allocation.bytes);
      const part = parts.get(key);
      if (part === undefined) {
        parts.set(key, {
          span,
          category: allocation.category,
          op,
          bytes,
          allocations: 1,
          largest: { tensor_id: allocation.tensor_id, bytes },
        });
      } else {
        part.bytes += bytes;
        part.allocations++;
        // The breakdown is by bytes descending, so the first one seen is the largest.
      }
      const timestamp = BigInt(allocation.timestamp_ns);
      if (newest === undefined || timestamp > newest.timestamp) newest = { timestamp, span };
    }
    const peak: PeakSide = {
      bytes: peakBytes,
      device: memory.peak_device,
      timestamp_ns: BigInt(memory.peak_timestamp_ns),
      spans: new Set(spanKeys),
      parts,
    };
    if (newest !== undefined) peak.span = newest.span;
    return { total_ns: BigInt(totalNs), span_self: spanSelf, ops, peak };
  }
}

/** Span path keys by span row, computed once per row and held once per distinct key. */
export class SpanKeyCache {
  #ofRow = new Int32Array(1024).fill(-1);
  readonly #ids = new Map<string, number>();
  readonly #keys: string[] = [];

  /** The key of `row`, made by `make` the first time. */
  of(row: number, make: (row: number) => string): string {
    if (row < this.#ofRow.length && (this.#ofRow[row] as number) >= 0) {
      return this.#keys[this.#ofRow[row] as number] as string;
    }
    const key = make(row);
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#keys.length;
      this.#ids.set(key, id);
      this.#keys.push(key);
    }
    if (row >= this.#ofRow.length) {
      let capacity = this.#ofRow.length * 2;
      while (capacity <= row) capacity *= 2;
      const grown = new Int32Array(capacity).fill(-1);
      grown.set(this.#ofRow);
      this.#ofRow = grown;
    }
    this.#ofRow[row] = id;
    return this.#keys[id] as string;
  }
}
