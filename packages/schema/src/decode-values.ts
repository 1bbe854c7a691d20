// Value readers used by the per-kind validators of `decodeTraceLine`. Each reads one value of the
// object JSON.parse produced, applies the spec's null and default rules (§2.1), consults the
// literal facts of the line scan for u64 values (§5), and throws a LineFailure when it must.
//
// They also account for the compact JSON length of every key and value they accept (`length`).
// The compact-text tier (decode-compact-text.ts) compares that with the raw line's length: see
// decode-compact-text.ts for why equality proves the line needed no literal-level checks.
import { LineFailure } from "./line-decode-error.js";
import { findFact, type MapValueFailure, type NumberFact } from "./line-scan.js";
import { normalizeU64, type U64, U64_MAX } from "./u64.js";

export type JsonRecord = Record<string, unknown>;

/** Per-line decoding state. */
export interface DecodeContext {
  /** Event kind, the prefix of field names in errors. */
  kind: string;
  /** Number facts of the line scan; null when there were none or no scan ran. */
  facts: NumberFact[] | null;
  /** Compact JSON length of the known keys present (null values included), plus one comma each. */
  length: number;
  /**
   * A number was accepted whose literal could have been written in exponent form no longer than
   * its shortest plain form (a u64 that is a non-zero multiple of 100, or such a norm).
   */
  exponentPossible: boolean;
  /** A `null` was read as absent (the parsed object then still has the key). */
  sawNull: boolean;
  /** The raw line, only in the compact-text tier. */
  line: string | undefined;
  /** Cached result of the compact-text tier's length proof. */
  proven: boolean | undefined;
  /** The first non-string value of a string map found by the line scan (null: none, or no scan). */
  mapFailure: MapValueFailure | null;
}

export function newContext(kind: string, facts: NumberFact[] | null): DecodeContext {
  return {
    kind,
    facts,
    length: 0,
    exponentPossible: false,
    sawNull: false,
    line: undefined,
    proven: undefined,
    mapFailure: null,
  };
}

/** A digit directly followed by `e`/`E`. */
const EXPONENT_LITERAL = /[0-9][eE]/;

/**
 * True when a digit is directly followed by `e`/`E`: the line may hold an exponent literal. One
 * precompiled regular expression (no `g` flag, so no lastIndex state) instead of a search per `e`.
 */
export function mayHaveExponent(line: string): boolean {
  return EXPONENT_LITERAL.test(line);
}

/** Records one present key whose value has compact JSON length `valueLength`: `"key":value,`. */
function account(context: DecodeContext, key: string, valueLength: number): void {
  context.length += key.length + 4 + valueLength;
}

/** Decimal digits of a safe non-negative integer (a comparison tree: no loop, no division). */
export function digitCount(value: number): number {
  if (value < 1e8) {
    if (value < 1e4) {
      if (value < 100) return value < 10 ? 1 : 2;
      return value < 1000 ? 3 : 4;
    }
    if (value < 1e6) return value < 1e5 ? 5 : 6;
    return value < 1e7 ? 7 : 8;
  }
  if (value < 1e12) {
    if (value < 1e10) return value < 1e9 ? 9 : 10;
    return value < 1e11 ? 11 : 12;
  }
  if (value < 1e14) return value < 1e13 ? 13 : 14;
  if (value < 1e15) return 15;
  return value < 1e16 ? 16 : 17;
}

/** serde-style description of an unexpected value, e.g. "string \"10\"" or "integer `5`". */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return `string ${JSON.stringify(value)}`;
    case "number":
      return Number.isInteger(value) && !Object.is(value, -0)
        ? `integer \`${value}\``
        : `floating point \`${value}\``;
    case "boolean":
      return `boolean \`${value}\``;
    default:
      return Array.isArray(value) ? "sequence" : "map";
  }
}

function field(context: DecodeContext, key: string): string {
  return `${context.kind}.${key}`;
}

export function missingField(context: DecodeContext, key: string): never {
  throw new LineFailure("missing_field", `missing field \`${key}\``, field(context, key));
}

export function wrongType(value: unknown, expected: string, fieldName: string): never {
  throw new LineFailure(
    "invalid_type",
    `invalid type: ${describeValue(value)}, expected ${expected}`,
    fieldName,
  );
}

/** An explicit `null` read as absent: it is on the line (`"key":null,`) but not in the event. */
export function nullAsAbsent(key: string, context: DecodeContext): void {
  account(context, key, 4);
  context.sawNull = true;
}

// Readers of a present, non-absent value of each wire type: the value as the event holds it, or a
// LineFailure naming the field. Absent keys and null-as-absent are the caller's (event-validators.ts).

export function stringValue(value: unknown, key: string, context: DecodeContext): string {
  if (typeof value !== "string") return wrongType(value, "a string", field(context, key));
  account(context, key, value.length + 2);
  return value;
}

export function booleanValue(value: unknown, key: string, context: DecodeContext): boolean {
  if (typeof value !== "boolean") return wrongType(value, "a boolean", field(context, key));
  account(context, key, value ? 4 : 5);
  return value;
}

function quoteVariants(variants: readonly string[]): string {
  if (variants.length === 2) return `\`${variants[0]}\` or \`${variants[1]}\``;
  return `one of ${variants.map((variant) => `\`${variant}\``).join(", ")}`;
}

export function unknownVariant(value: string, variants: readonly string[], fieldName: string): never {
  throw new LineFailure(
    "unknown_variant",
    `unknown variant \`${value}\`, expected ${quoteVariants(variants)}`,
    fieldName,
  );
}

export function enumValue(
  value: unknown,
  key: string,
  variants: readonly string[],
  context: DecodeContext,
): string {
  if (typeof value !== "string")
    return wrongType(value, `one of ${variants.join(", ")}`, field(context, key));
  if (!variants.includes(value)) return unknownVariant(value, variants, field(context, key));
  account(context, key, value.length + 2);
  return value;
}

/**
 * Reads one u64 (or usize shape element) value. `index` is -1 for a key's own value or the element
 * index inside an array. Digit-only literals shorter than 16 characters leave no fact and are
 * always safe integers; everything else is decided from the literal text.
 */
export function u64Value(
  value: unknown,
  key: string,
  index: number,
  context: DecodeContext,
  expected: "u64" | "usize",
): U64 {
  if (typeof value === "number" && context.facts === null && Number.isSafeInteger(value) && value >= 0) {
    return value;
  }
  const fieldName = index === -1 ? field(context, key) : `${context.kind}.${key}[${index}]`;
  const code = expected === "u64" ? "expected_u64" : "expected_usize";
  if (typeof value === "number") {
    const fact = findFact(context.facts, key, index);
    if (fact === undefined) {
      if (Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0)) return value;
      throw new LineFailure(code, `invalid value: ${describeValue(value)}, expected ${expected}`, fieldName);
    }
    const text = fact.text;
    if (fact.floatForm) {
      const integral = /^-\d+$/.test(text) && text !== "-0";
      const description = integral
        ? `invalid value: integer \`${text}\``
        : `invalid type: floating point \`${text}\``;
      throw new LineFailure(code, `${description}, expected ${expected}`, fieldName);
    }
    const exact = BigInt(text);
    if (exact > U64_MAX) {
      throw new LineFailure(
        code,
        `invalid value: integer \`${text}\` is out of range, expected ${expected}`,
        fieldName,
      );
    }
    return normalizeU64(exact);
  }
  if (value === null)
    throw new LineFailure("invalid_type", `invalid type: null, expected ${expected}`, fieldName);
  throw new LineFailure(code, `invalid type: ${describeValue(value)}, expected ${expected}`, fieldName);
}

/**
 * Compact length of an accepted u64 (bigints only occur in the any-JSON tier, where length is
 * unused). An exponent literal is never shorter than the digits unless the value ends in two
 * zeros (`12e2` = 1200): only then must the compact-text tier look for exponents.
 */
function u64Length(value: U64, context: DecodeContext): number {
  if (typeof value !== "number") return 0;
  if (value % 100 === 0 && value !== 0) context.exponentPossible = true;
  return digitCount(value);
}

/** Same for a norm: exponent forms can only be as short as String(value) in these ranges. */
export function floatExponentPossible(value: number): boolean {
  const magnitude = Math.abs(value);
  if (magnitude === 0) return false;
  if (magnitude < 0.01 || magnitude >= 1e21) return true;
  return Number.isInteger(value) && magnitude >= 100 && value % 100 === 0;
}

export function u64Checked(value: unknown, key: string, context: DecodeContext): U64 {
  const result = u64Value(value, key, -1, context, "u64");
  account(context, key, u64Length(result, context));
  return result;
}

/** A shape: an array of usize. Reuses the parsed array. */
export function shapeValue(value: unknown, key: string, context: DecodeContext): U64[] {
  if (!Array.isArray(value)) return wrongType(value, "a sequence", field(context, key));
  const shape = value as unknown[];
  let length = shape.length === 0 ? 2 : shape.length + 1;
  for (let index = 0; index < shape.length; index++) {
    const element = shape[index];
    const result = u64Value(element, key, index, context, "usize");
    if (result !== element) shape[index] = result;
    length += u64Length(result, context);
  }
  account(context, key, length);
  return shape as U64[];
}

/** An array of strings. Reuses the parsed array. */
export function stringArrayValue(value: unknown, key: string, context: DecodeContext): string[] {
  if (!Array.isArray(value)) return wrongType(value, "a sequence", field(context, key));
  const strings = value as unknown[];
  let length = strings.length === 0 ? 2 : strings.length + 1;
  for (let index = 0; index < strings.length; index++) {
    const element = strings[index];
    if (typeof element !== "string") wrongType(element, "a string", `${context.kind}.${key}[${index}]`);
    length += (element as string).length + 2;
  }
  account(context, key, length);
  return strings as string[];
}

/**
 * A string map (`tags`). Copied into a null-prototype object so keys such as `__proto__` or
 * `constructor` stay plain data and cannot reach any prototype.
 */
export function stringMapValue(
  value: unknown,
  mapKey: string,
  context: DecodeContext,
): Record<string, string> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return wrongType(value, "a map", field(context, mapKey));
  }
  // A repeated map key must not hide a bad earlier value: the scan saw every value in text order.
  const hidden = context.mapFailure;
  if (hidden !== null && hidden.key === mapKey) {
    throw new LineFailure(
      "invalid_type",
      `invalid type: ${hidden.description}, expected a string`,
      `${context.kind}.${mapKey}.${hidden.entry}`,
    );
  }
  const tags = Object.create(null) as Record<string, string>;
  const source = value as JsonRecord;
  const keys = Object.keys(source);
  let length = keys.length === 0 ? 2 : keys.length + 1;
  for (const key of keys) {
    const tag = source[key];
    if (typeof tag !== "string") wrongType(tag, "a string", `${context.kind}.${mapKey}.${key}`);
    tags[key] = tag as string;
    length += key.length + 3 + (tag as string).length + 2;
  }
  account(context, mapKey, length);
  return tags;
}

/** An f64 (`norm`): any finite JSON number (ints read as floats, -0 kept). */
export function floatValue(value: unknown, key: string, context: DecodeContext): number {
  if (typeof value !== "number") return wrongType(value, "f64", field(context, key));
  if (floatExponentPossible(value)) context.exponentPossible = true;
  account(context, key, String(value).length);
  return value;
}
