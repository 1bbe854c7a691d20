// The "efficiency" query (spec §16): ops by output storage bytes per nanosecond of their duration,
// the best `limit` kept while the ops go by, for a stream and a document alike.
import { resolveStorageBytes } from "@cg/memory";
import type { OpEvent, TraceEvent } from "@cg/schema/core";
import { IdTable } from "./id-table.js";
import { type OpCost, opCost, opId } from "./op-cost.js";

export interface EfficiencyEntry extends OpCost {
  /** `storage_bytes ÷ self_ns`; only ops with both above 0 are listed. */
  bytes_per_ns: number;
}

export const EFFICIENCY_NOTE =
  "bytes per nanosecond of self time: output storage bytes ÷ op duration; only ops with both above 0";

/**
 * `queryTrace` "efficiency": ops by output bytes per nanosecond, the best `limit` kept. An op's id
 * needs its ordinal within its span, so ops are counted per span id (interned, a typed column).
 */
export class EfficiencyRanking {
  readonly #limit: number;
  readonly #spanIds = new IdTable();
  #ordinals = new Int32Array(1024);
  readonly #entries: EfficiencyEntry[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(event: TraceEvent): void {
    if (event.kind !== "op") return;
    const index = this.#spanIds.intern(event.span_id);
    if (index >= this.#ordinals.length) {
      const grown = new Int32Array(this.#ordinals.length * 2);
      grown.set(this.#ordinals);
      this.#ordinals = grown;
    }
    const ordinal = this.#ordinals[index] as number;
    this.#ordinals[index] = ordinal + 1;
    const bytes = resolveStorageBytes(event.storage_bytes, event.shape, event.dtype);
    if (!(BigInt(bytes) > 0n && BigInt(event.duration_ns) > 0n)) return;
    const ratio = Number(bytes) / Number(event.duration_ns);
    const entries = this.#entries;
    if (this.#limit <= 0) return;
    const id = opId(event.span_id, ordinal);
    const ahead = (entry: EfficiencyEntry): boolean =>
      entry.bytes_per_ns > ratio || (entry.bytes_per_ns === ratio && entry.id < id);
    const last = entries[entries.length - 1];
    if (entries.length >= this.#limit && last !== undefined && ahead(last)) return;
    let at = entries.length;
    while (at > 0 && !ahead(entries[at - 1] as EfficiencyEntry)) at--;
    entries.splice(at, 0, {
      ...opCost({ ...(event as OpEvent), storage_bytes: bytes }, ordinal),
      bytes_per_ns: ratio,
    });
    if (entries.length > this.#limit) entries.pop();
  }

  values(): EfficiencyEntry[] {
    return this.#entries.slice();
  }
}
