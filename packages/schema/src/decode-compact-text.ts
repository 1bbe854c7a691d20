// The compact-text tier: the per-kind validators over the object JSON.parse produced, with the
// length proof instead of a structural scan. It accepts the compact lines writers produce, `meta`
// lines and `null` values included, and hands every other line to the any-JSON tier.
import { type JsonRecord, newContext } from "./decode-values.js";
import { isProvenCompact, validateRecord } from "./event-validators.js";
import type { TraceEvent } from "./events.js";

const compactContext = newContext("", null);

/**
 * The compact-text tier. Every way in which a line can differ from the compact serialization of the
 * value JSON.parse returned makes the line LONGER — whitespace between tokens, an escape sequence
 * in a string (`\n`, `\u00e9`, a lone `\ud800`: always longer than the character it stands for),
 * a repeated key (its first occurrence vanished from the value), a non-canonical number (`5000.0`,
 * `-0`, `1.50`: String(value) is the shortest plain form) — except an exponent literal, which can
 * be as short or shorter only for the values `exponentPossible` flags; such lines are checked for
 * exponents first. So when the compact length the validators accounted for equals the line's
 * length, no literal-level rule can fail, there are no unknown keys, and the event is final.
 * Anything else goes to the any-JSON tier (decodeAnyJson).
 */
export function decodeCompactText(line: string, record: JsonRecord, kind: string): TraceEvent | undefined {
  // One context for every attempt: decoding is synchronous and never re-entered.
  const context = compactContext;
  context.kind = kind;
  context.length = 0;
  context.exponentPossible = false;
  context.sawNull = false;
  context.line = line;
  context.proven = undefined;
  let event: TraceEvent;
  try {
    event = validateRecord(record, context);
  } catch {
    return undefined;
  }
  // Unknown keys are never accounted for, so their text alone makes the line longer: the proof
  // also shows there are none.
  return isProvenCompact(context) ? event : undefined;
}
