// An op as `queryTrace` lists it: a graph node with its own cost. Both the document queries and the
// streaming rankings build it, so it lives apart from either.
import type { OpEvent, U64 } from "@cg/schema/core";

/** An op as a graph node: id `<span_id>/op/<n>` with n its 0-based order within its span. */
export interface OpCost {
  id: string;
  span_id: string;
  op_name: string;
  device: string;
  dtype: string;
  /** An op's self time is its duration. */
  self_ns: U64;
  storage_bytes: U64;
  input_storage_bytes: U64;
  timestamp_ns: U64;
}

const OP_ID_INFIX = "/op/";
const DIGIT_0 = 0x30;

/** The id of the op `ordinal` (0-based) of span `spanId`: `<span_id>/op/<n>`. */
export function opId(spanId: string, ordinal: number): string {
  return `${spanId}${OP_ID_INFIX}${ordinal}`;
}

/**
 * `opId(spanId, ordinal) < other` (UTF-16 code unit order, as `<` compares strings), without
 * building the id: rankings decide ties with it once per op, and most ops of a large trace tie.
 */
export function opIdBefore(spanId: string, ordinal: number, other: string): boolean {
  const byPrefix = prefixOrder(spanId, other);
  return byPrefix === 0 ? digitsBefore(ordinal, other, spanId.length + OP_ID_INFIX.length) : byPrefix < 0;
}

/**
 * `opIdBefore` against an id that rarely changes (a ranking's last entry) for ops that come in runs
 * of one span: how the `<span_id>/op/` part alone orders against it is kept for the last (span,
 * other) pair, so most ties cost two string comparisons instead of a walk over both ids.
 */
export class OpIdOrder {
  #spanId: string | undefined;
  #other: string | undefined;
  /** -1 or 1: the `<span_id>/op/` part already puts the id before or after `#other`; 0: its digits decide. */
  #byPrefix = 0;

  /** `opId(spanId, ordinal) < other`. */
  before(spanId: string, ordinal: number, other: string): boolean {
    if (spanId !== this.#spanId || other !== this.#other) {
      this.#spanId = spanId;
      this.#other = other;
      this.#byPrefix = prefixOrder(spanId, other);
    }
    if (this.#byPrefix !== 0) return this.#byPrefix < 0;
    return digitsBefore(ordinal, other, spanId.length + OP_ID_INFIX.length);
  }
}

/** How `<spanId>/op/` orders against the start of `other`: -1 or 1 when that decides, else 0. */
function prefixOrder(spanId: string, other: string): number {
  const spanLength = spanId.length;
  const prefixLength = spanLength + OP_ID_INFIX.length;
  const shared = Math.min(prefixLength, other.length);
  for (let at = 0; at < shared; at++) {
    const code = at < spanLength ? spanId.charCodeAt(at) : OP_ID_INFIX.charCodeAt(at - spanLength);
    const theirs = other.charCodeAt(at);
    if (code !== theirs) return code < theirs ? -1 : 1;
  }
  // `other` ends within the prefix: the id, which goes on to its digits, is the longer and comes after.
  return other.length <= prefixLength ? 1 : 0;
}

/** Whether the decimal digits of `ordinal` sort before `other` from `from` on (the prefixes equal). */
function digitsBefore(ordinal: number, other: string, from: number): boolean {
  let scale = 1;
  let digits = 1;
  while (scale * 10 <= ordinal) {
    scale *= 10;
    digits++;
  }
  const shared = Math.min(digits, other.length - from);
  for (let at = 0; at < shared; at++) {
    const code = DIGIT_0 + (Math.floor(ordinal / scale) % 10);
    scale /= 10;
    const theirs = other.charCodeAt(from + at);
    if (code !== theirs) return code < theirs;
  }
  return from + digits < other.length;
}

/** An op as `queryTrace` lists it. */
export function opCost(op: OpEvent & { storage_bytes: U64 }, ordinal: number): OpCost {
  return {
    id: opId(op.span_id, ordinal),
    span_id: op.span_id,
    op_name: op.op_name,
    device: op.device,
    dtype: op.dtype,
    self_ns: op.duration_ns,
    storage_bytes: op.storage_bytes,
    input_storage_bytes: op.input_storage_bytes,
    timestamp_ns: op.timestamp_ns,
  };
}
