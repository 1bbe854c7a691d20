// Field encoders shared by the per-kind serializers. Each one validates its value and returns the
// JSON text, so a serializer builds the whole line before anything is written: bad input throws
// a WriterInputError naming the field and leaves the trace untouched.
import { encodeJsonString, U64_MAX } from "@cg/schema/core";
import { WriterInputError } from "../writer-input-error.js";
import { integerDigits } from "./integer-digits.js";

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function shown(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" && Object.is(value, -0)) return "-0";
  try {
    return String(value);
  } catch {
    return typeof value;
  }
}

export function invalidField(field: string, expected: string, value: unknown): WriterInputError {
  return new WriterInputError({ message: `${field} must be ${expected}, got ${shown(value)}`, field });
}

/**
 * A JSON string literal, escaped exactly as the schema's canonical encoder does (a lone surrogate
 * becomes U+FFFD, since no trace/6 reader accepts an escaped one; spec §4.6).
 */
export function jsonString(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalidField(field, "a string", value);
  // Fast path for the common case (short labels with nothing to escape): a character scan is
  // cheaper than a JSON.stringify call. Anything that needs escaping or is a surrogate takes the
  // schema encoder, so the output is always the canonical one.
  if (value.length <= 64) {
    for (let index = 0; index < value.length; index++) {
      const code = value.charCodeAt(index);
      if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) {
        return encodeJsonString(value);
      }
    }
    return '"' + value + '"';
  }
  return encodeJsonString(value);
}

/** Exact decimal digits of a u64: a safe non-negative integer number or a bigint up to 2^64 − 1. */
export function u64Text(value: unknown, field: string): string {
  if (typeof value === "number") {
    if (value >= 0 && value <= MAX_SAFE && Math.floor(value) === value) return integerDigits(value);
  } else if (typeof value === "bigint") {
    if (value >= 0n && value <= U64_MAX) return value.toString();
  }
  throw invalidField(field, "an integer in 0..2^64-1 (a safe integer number or a bigint)", value);
}

export function booleanText(value: unknown, field: string): string {
  if (value === true) return "true";
  if (value === false) return "false";
  throw invalidField(field, "a boolean", value);
}

/** `[d0,d1,...]`; an absent shape is `[]`. */
export function shapeText(shape: unknown, field: string): string {
  if (shape === undefined) return "[]";
  if (!Array.isArray(shape)) throw invalidField(field, "an array of integers", shape);
  const length = shape.length;
  if (length === 0) return "[]";
  let text = "[";
  for (let index = 0; index < length; index++) {
    const dimension: unknown = shape[index];
    // Plain small dimensions inline; the field name is only built for an error.
    const part =
      typeof dimension === "number" &&
      dimension >= 0 &&
      dimension <= MAX_SAFE &&
      Math.floor(dimension) === dimension
        ? integerDigits(dimension)
        : u64Text(dimension, `${field}[${index}]`);
    text = index === 0 ? text + part : text + "," + part;
  }
  return text + "]";
}

/** `["a","b"]`; absent is `[]`. */
export function stringArrayText(values: unknown, field: string): string {
  if (values === undefined) return "[]";
  if (!Array.isArray(values)) throw invalidField(field, "an array of strings", values);
  const length = values.length;
  if (length === 0) return "[]";
  let text = "[";
  for (let index = 0; index < length; index++) {
    const value: unknown = values[index];
    const part =
      typeof value === "string" ? jsonString(value, field) : jsonString(value, `${field}[${index}]`);
    text = index === 0 ? text + part : text + "," + part;
  }
  return text + "]";
}

const enumLiterals = new WeakMap<readonly string[], Map<string, string>>();

/** An enum value, checked against its allowed spellings; returns the quoted literal (no allocation). */
export function enumText(value: unknown, allowed: readonly string[], field: string): string {
  let literals = enumLiterals.get(allowed);
  if (literals === undefined) {
    literals = new Map(allowed.map((spelling) => [spelling, `"${spelling}"`]));
    enumLiterals.set(allowed, literals);
  }
  const literal = typeof value === "string" ? literals.get(value) : undefined;
  if (literal !== undefined) return literal;
  throw invalidField(field, `one of ${allowed.join(", ")}`, value);
}
