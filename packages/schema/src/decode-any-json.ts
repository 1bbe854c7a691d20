// The any-JSON tier: every line JSON.parse accepts. One structural scan of the raw text (line-scan.ts)
// recovers what JSON.parse hides (literal forms, exact big integers, lone surrogates, repeated keys,
// every value of a repeated map key); the per-kind validators then decide with those facts.
import { type JsonRecord, newContext } from "./decode-values.js";
import { EVENT_LAYOUTS, knownKeySets, mapKeySets } from "./event-layouts.js";
import { validateRecord } from "./event-validators.js";
import type { TraceEvent } from "./events.js";
import { LineFailure } from "./line-decode-error.js";
import { scanLine } from "./line-scan.js";

const KNOWN_KEYS = knownKeySets(EVENT_LAYOUTS);
const MAP_KEYS = mapKeySets(EVENT_LAYOUTS);
/** An unknown kind has one known key: `kind` itself. */
const KIND_ONLY: ReadonlySet<string> = new Set(["kind"]);

/**
 * The first repeated KNOWN key (`kind` or a field of the kind), or undefined. A repeated unknown
 * key is ignored like any unknown key (spec §2.1).
 */
function firstKnownDuplicate(keys: readonly string[], known: ReadonlySet<string>): string | undefined {
  const seen = new Set<string>();
  for (const key of keys) {
    if (!known.has(key)) continue;
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

/** Decodes a parsed line of any JSON form; throws a LineFailure for the first defect. */
export function decodeAnyJson(line: string, record: JsonRecord, kind: string): TraceEvent {
  const mapKeys = MAP_KEYS.get(kind);
  const scan = scanLine(line, false, kind, mapKeys);
  if (scan.keyCount !== Object.keys(record).length) {
    const keys = scanLine(line, true, kind).keys ?? [];
    const duplicate = firstKnownDuplicate(keys, KNOWN_KEYS.get(kind) ?? KIND_ONLY);
    if (duplicate !== undefined) {
      throw new LineFailure("duplicate_field", `duplicate field \`${duplicate}\``, `${kind}.${duplicate}`);
    }
  }
  const context = newContext(kind, scan.facts);
  context.mapFailure = scan.mapFailure;
  return validateRecord(record, context);
}
