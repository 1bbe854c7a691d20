// The plain compact-text tier of `decodeTraceLine`: one straight-line, never-throwing validator per
// event kind for the lines writers actually produce. It accepts only a subset of what the
// compact-text tier (decodeCompactText) accepts and returns the very same event for it: every
// known key has its plain type (no `null` anywhere; strings, booleans, enum spellings, safe
// non-negative integers, finite numbers for `norm`), and the same length proof holds — the compact
// length of the accepted keys and values equals the line's length and no accepted number could hide
// an exponent literal. Anything else (a `null`, a wrong type, a missing key, an unknown key, a
// `meta` line, any literal-level doubt) returns `undefined` and the line goes through the
// compact-text and any-JSON tiers, which produce the result and its error message.
//
// Each reader returns the compact length of `"key":value,` for an accepted value, 0 for an absent
// optional key and NaN for anything the tier does not accept: NaN survives every addition, so one
// comparison with the line's length at the end decides, without a branch per key.
//
// The per-kind validators are generated from the layout table at module load (one sum of member
// readers in table order, then the defaults of absent keys filled in; see generated-function.ts).
// Where code generation is forbidden the tier declines every line.

import { digitCount, floatExponentPossible, type JsonRecord, mayHaveExponent } from "./decode-values.js";
import { EVENT_LAYOUTS, type EventLayoutTable, type FieldLayout } from "./event-layouts.js";
import type { TraceEvent } from "./events.js";
import { generatedTier, type SourceCompiler, SourceConstants, sourceString } from "./generated-function.js";

/**
 * Set by the number readers of the line being decoded (decoding is synchronous and never
 * re-entered): an accepted number could have been written as an exponent literal no longer than
 * its plain form (see u64Length in decode-values.ts).
 */
let exponentPossible = false;

// Member readers: the compact length of `"key":value,`, NaN for a value the tier does not take;
// the `optional…` forms read an absent key as 0 (nothing on the line).

/** `"key":"value",` */
function stringMember(value: unknown, key: string): number {
  return typeof value === "string" ? key.length + 6 + value.length : Number.NaN;
}

function optionalStringMember(value: unknown, key: string): number {
  return value === undefined ? 0 : stringMember(value, key);
}

/** Compact length of a safe non-negative integer (`-0` passes; its two characters fail the proof). */
function u64Digits(value: unknown): number {
  if (!Number.isSafeInteger(value)) return Number.NaN;
  const number = value as number;
  if (number < 0) return Number.NaN;
  if (number % 100 === 0 && number !== 0) exponentPossible = true;
  return digitCount(number);
}

/** `"key":digits,` */
function u64Member(value: unknown, key: string): number {
  return key.length + 4 + u64Digits(value);
}

function optionalU64Member(value: unknown, key: string): number {
  return value === undefined ? 0 : u64Member(value, key);
}

/** `"key":true,` / `"key":false,` */
function booleanMember(value: unknown, key: string): number {
  if (value === true) return key.length + 8;
  return value === false ? key.length + 9 : Number.NaN;
}

function optionalBooleanMember(value: unknown, key: string): number {
  return value === undefined ? 0 : booleanMember(value, key);
}

function enumMember(value: unknown, key: string, variants: readonly string[]): number {
  return typeof value === "string" && variants.includes(value) ? key.length + 6 + value.length : Number.NaN;
}

function optionalEnumMember(value: unknown, key: string, variants: readonly string[]): number {
  return value === undefined ? 0 : enumMember(value, key, variants);
}

/** `"key":[d,d],` */
function shapeMember(value: unknown, key: string): number {
  if (!Array.isArray(value)) return Number.NaN;
  const count = value.length;
  let length = key.length + 4 + (count === 0 ? 2 : count + 1);
  for (let index = 0; index < count; index++) length += u64Digits(value[index]);
  return length;
}

function optionalShapeMember(value: unknown, key: string): number {
  return value === undefined ? 0 : shapeMember(value, key);
}

/** `"key":["s","s"],` */
function stringsMember(value: unknown, key: string): number {
  if (!Array.isArray(value)) return Number.NaN;
  const count = value.length;
  let length = key.length + 4 + (count === 0 ? 2 : count + 1);
  for (let index = 0; index < count; index++) {
    const element: unknown = value[index];
    length += typeof element === "string" ? element.length + 2 : Number.NaN;
  }
  return length;
}

function optionalStringsMember(value: unknown, key: string): number {
  return value === undefined ? 0 : stringsMember(value, key);
}

/** `"key":number,`: any finite number, written as String(value). */
function floatMember(value: unknown, key: string): number {
  if (typeof value !== "number") return Number.NaN;
  if (floatExponentPossible(value)) exponentPossible = true;
  return key.length + 4 + String(value).length;
}

function optionalFloatMember(value: unknown, key: string): number {
  return value === undefined ? 0 : floatMember(value, key);
}

/**
 * The length proof of the compact-text tier: `{"kind":"<kind>",` and `}` around the members, minus
 * the comma after the last one, is the whole line, and no accepted number could hide an exponent.
 */
function proven(line: string, kind: string, members: number): boolean {
  return kind.length + 11 + members === line.length && !(exponentPossible && mayHaveExponent(line));
}

/** The member reader of each wire type the tier takes: required, and absent-allowed (optional or defaulted). */
const MEMBER_READERS: Partial<Record<FieldLayout["type"], readonly [MemberReader, MemberReader]>> = {
  string: [stringMember, optionalStringMember],
  u64: [u64Member, optionalU64Member],
  boolean: [booleanMember, optionalBooleanMember],
  f64: [floatMember, optionalFloatMember],
  enum: [enumMember, optionalEnumMember],
  strings: [stringsMember, optionalStringsMember],
  shape: [shapeMember, optionalShapeMember],
};

type MemberReader = (value: unknown, key: string, variants: readonly string[]) => number;

type PlainCompactText = (line: string, record: JsonRecord, kind: string) => TraceEvent | undefined;

/** The generated validator of one kind, or undefined for a kind with a type the tier does not take. */
function kindSource(
  constants: SourceConstants,
  fields: readonly FieldLayout[],
  kind: string,
): string | undefined {
  const members: string[] = [];
  let defaults = "";
  for (const field of fields) {
    const readers = MEMBER_READERS[field.type];
    if (readers === undefined) return undefined;
    const value = `record[${sourceString(field.key)}]`;
    const variants = field.type === "enum" ? `, ${constants.ref(field.variants ?? [])}` : "";
    const reader = `${field.presence === "required" ? "required" : "absentAllowed"}_${field.type}`;
    members.push(`${reader}(${value}, ${sourceString(field.key)}${variants})`);
    if (field.presence === "defaulted") {
      // A fresh `[]` per event: events must not share a mutable default.
      const fallback = Array.isArray(field.default) ? "[]" : constants.ref(field.default);
      defaults += `if (${value} === undefined) ${value} = ${fallback};\n`;
    }
  }
  return `if (!proven(line, ${sourceString(kind)}, ${members.join(" + ") || "0"})) return undefined;\n${defaults}return record;\n`;
}

/**
 * The plain compact-text tier of `layouts`; where code generation is forbidden, one that declines
 * every line.
 * @internal
 */
export function compilePlainCompactText(
  layouts: EventLayoutTable,
  compile?: SourceCompiler,
): PlainCompactText {
  const constants = new SourceConstants();
  let cases = "";
  for (const layout of Object.values(layouts)) {
    const body = kindSource(constants, layout.fields, layout.kind);
    if (body !== undefined) cases += `case ${sourceString(layout.kind)}: {\n${body}}\n`;
  }
  const source = `return function decodePlainCompactText(line, record, kind) {\nstartLine();\nswitch (kind) {\n${cases}default:\nreturn undefined;\n}\n};\n`;
  const bindings: Record<string, unknown> = { C: constants.values, startLine, proven };
  for (const [type, [required, absentAllowed]] of Object.entries(MEMBER_READERS)) {
    bindings[`required_${type}`] = required;
    bindings[`absentAllowed_${type}`] = absentAllowed;
  }
  return generatedTier<PlainCompactText>(bindings, source, compile);
}

function startLine(): void {
  exponentPossible = false;
}

const plainCompactText = compilePlainCompactText(EVENT_LAYOUTS);

/**
 * The plain compact-text tier: the final event when `line` (whose JSON.parse result is `record`, with
 * `record.kind === kind`) is a plain compact line of a non-meta kind, else `undefined` (nothing
 * mutated). Never throws.
 */
export function decodePlainCompactText(
  line: string,
  record: JsonRecord,
  kind: string,
): TraceEvent | undefined {
  return plainCompactText(line, record, kind);
}
