// Value readers used by the per-kind validators of `decodeTraceLine`. They read one key of the
// object JSON.parse produced, apply the spec's null and default rules (§2.1), and consult the
// literal facts of the line scan for u64 values (§5). Every failure throws a LineFailure.
import { LineFailure } from "./line-decode-error.js";
import { findFact, type NumberFact } from "./line-scan.js";
import { normalizeU64, type U64, U64_MAX } from "./u64.js";

export type JsonRecord = Record<string, unknown>;

/** Per-line decoding context: the event kind (field prefix) and the scan's number facts. */
export interface DecodeContext {
  kind: string;
  facts: NumberFact[] | null;
}

/** serde-style description of an unexpected value, e.g. "string \"10\"" or "integer `5`". */
export function describeValue(value: unknown, literal?: string): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return `string ${JSON.stringify(value)}`;
    case "number":
      return Number.isInteger(value) && !Object.is(value, -0)
        ? `integer \`${literal ?? value}\``
        : `floating point \`${literal ?? value}\``;
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

export function requiredString(record: JsonRecord, key: string, context: DecodeContext): string {
  const value = record[key];
  if (typeof value === "string") return value;
  if (value === undefined) missingField(context, key);
  return wrongType(value, "a string", field(context, key));
}

/** Optional string without default: absent and `null` both read as absent. */
export function optionalString(record: JsonRecord, key: string, context: DecodeContext): string | undefined {
  const value = record[key];
  if (typeof value === "string" || value === undefined || value === null) return value ?? undefined;
  return wrongType(value, "a string", field(context, key));
}

export function defaultedBoolean(record: JsonRecord, key: string, context: DecodeContext): boolean {
  const value = record[key];
  if (typeof value === "boolean") return value;
  if (value === undefined) return false;
  return wrongType(value, "a boolean", field(context, key));
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

/** An enum value; `undefined` when the key is absent (callers apply required/default rules). */
export function enumValue<T extends string>(
  record: JsonRecord,
  key: string,
  variants: readonly T[],
  context: DecodeContext,
  nullIsAbsent: boolean,
): T | undefined {
  const value = record[key];
  if (typeof value === "string") {
    if ((variants as readonly string[]).includes(value)) return value as T;
    return unknownVariant(value, variants, field(context, key));
  }
  if (value === undefined || (value === null && nullIsAbsent)) return undefined;
  return wrongType(value, `one of ${variants.join(", ")}`, field(context, key));
}

export function requiredEnum<T extends string>(
  record: JsonRecord,
  key: string,
  variants: readonly T[],
  context: DecodeContext,
): T {
  const value = enumValue(record, key, variants, context, false);
  if (value === undefined) return missingField(context, key);
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
  if (typeof value === "number" && context.facts === null && Number.isSafeInteger(value) && value >= 0)
    return value;
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

export function requiredU64(record: JsonRecord, key: string, context: DecodeContext): U64 {
  const value = record[key];
  if (value === undefined) missingField(context, key);
  return u64Value(value, key, -1, context, "u64");
}

export function defaultedU64(record: JsonRecord, key: string, context: DecodeContext): U64 {
  const value = record[key];
  if (value === undefined) return 0;
  return u64Value(value, key, -1, context, "u64");
}

/** Optional u64 without default: absent and `null` both read as absent. */
export function optionalU64(record: JsonRecord, key: string, context: DecodeContext): U64 | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  return u64Value(value, key, -1, context, "u64");
}

/** `shape`: an array of usize, default `[]`; `null` is rejected. Reuses the parsed array. */
export function shapeValue(record: JsonRecord, context: DecodeContext): U64[] {
  const value = record.shape;
  if (value === undefined) return [];
  if (!Array.isArray(value)) return wrongType(value, "a sequence", field(context, "shape"));
  const shape = value as unknown[];
  for (let index = 0; index < shape.length; index++) {
    shape[index] = u64Value(shape[index], "shape", index, context, "usize");
  }
  return shape as U64[];
}

/** `inputs`: an array of strings, default `[]`; `null` is rejected. Reuses the parsed array. */
export function stringArrayValue(record: JsonRecord, key: string, context: DecodeContext): string[] {
  const value = record[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) return wrongType(value, "a sequence", field(context, key));
  const strings = value as unknown[];
  for (let index = 0; index < strings.length; index++) {
    const element = strings[index];
    if (typeof element !== "string") wrongType(element, "a string", `${context.kind}.${key}[${index}]`);
  }
  return strings as string[];
}

/**
 * `tags`: a string map, required. Copied into a null-prototype object so keys such as `__proto__`
 * or `constructor` stay plain data and cannot reach any prototype.
 */
export function tagsValue(record: JsonRecord, context: DecodeContext): Record<string, string> {
  const value = record.tags;
  if (value === undefined) return missingField(context, "tags");
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return wrongType(value, "a map", field(context, "tags"));
  }
  const tags = Object.create(null) as Record<string, string>;
  const source = value as JsonRecord;
  for (const key of Object.keys(source)) {
    const tag = source[key];
    if (typeof tag !== "string") wrongType(tag, "a string", `${context.kind}.tags.${key}`);
    tags[key] = tag as string;
  }
  return tags;
}

/** `norm`: any finite JSON number (ints read as floats, -0 kept); `null` reads as absent. */
export function optionalFloat(record: JsonRecord, key: string, context: DecodeContext): number | undefined {
  const value = record[key];
  if (typeof value === "number" || value === undefined || value === null) return value ?? undefined;
  return wrongType(value, "f64", field(context, key));
}
