// The per-kind validators of the text tiers, built from the layout table: each reads the object
// JSON.parse produced, validates every known key in table order (value readers in
// decode-values.ts; the table's presence, default and null rule decide what an absent key or a
// `null` means), and returns an object of exactly the shape the zod schemas produce. Run by the
// compact-text tier (with the length proof, decode-compact-text.ts) and by the any-JSON tier (with
// the facts of the structural scan, decode-any-json.ts).
//
// They are generated code (generated-function.ts; events built as event-literal-source.ts does):
// closures over the table measured 13–20 % slower on these tiers. They must also run where code
// generation is forbidden, so the same rules as closures (fieldValidator, validateKind) are the
// fallback there.
import {
  booleanValue,
  type DecodeContext,
  describeValue,
  enumValue,
  floatValue,
  type JsonRecord,
  mayHaveExponent,
  missingField,
  newContext,
  nullAsAbsent,
  shapeValue,
  stringArrayValue,
  stringMapValue,
  stringValue,
  u64Checked,
  unknownVariant,
} from "./decode-values.js";
import { EVENT_LAYOUTS, type EventLayoutTable, type FieldLayout, type WireType } from "./event-layouts.js";
import { eventReturnSource } from "./event-literal-source.js";
import type { TraceEvent } from "./events.js";
import {
  generatedFunction,
  type SourceCompiler,
  SourceConstants,
  sourceString,
} from "./generated-function.js";
import { LineFailure } from "./line-decode-error.js";
import { EVENT_KINDS } from "./wire-enums.js";

/**
 * The compact-text tier's proof (see decodeCompactText), computed once per line after every known
 * key was validated: the line is exactly as long as the compact form the validators accounted for.
 */
export function isProvenCompact(context: DecodeContext): boolean {
  if (context.proven === undefined) {
    const line = context.line;
    context.proven =
      line !== undefined &&
      // `"kind":"<kind>",` plus braces, minus the comma after the last key.
      context.length + context.kind.length + 11 === line.length &&
      !(context.exponentPossible && mayHaveExponent(line));
  }
  return context.proven;
}

/** The parsed object may be returned as the event: proven compact and no `null` to drop. */
function canReuse(context: DecodeContext): boolean {
  return isProvenCompact(context) && !context.sawNull;
}

/** Reads a present value of one wire type (no `undefined`; `null` only where it is not absent). */
type ValueReader = (value: unknown, key: string, context: DecodeContext) => unknown;

/** The value reader of each wire type; `enumValue` takes the variants before the context. */
const READERS = {
  string: stringValue,
  enum: enumValue,
  u64: u64Checked,
  boolean: booleanValue,
  f64: floatValue,
  strings: stringArrayValue,
  shape: shapeValue,
  string_map: stringMapValue,
} as const satisfies Record<WireType, unknown>;

/** One key's validator: its value as the event holds it, `undefined` for an absent one. */
type FieldValidator = (record: JsonRecord, context: DecodeContext) => unknown;

function fieldValidator(field: FieldLayout): FieldValidator {
  const key = field.key;
  const variants = field.variants ?? [];
  const read: ValueReader =
    field.type === "enum"
      ? (value, _key, context) => enumValue(value, key, variants, context)
      : READERS[field.type];
  const fallback = field.default;
  const absent: (context: DecodeContext) => unknown =
    field.presence === "required"
      ? (context) => missingField(context, key)
      : field.presence === "optional"
        ? () => undefined
        : Array.isArray(fallback)
          ? () => [] // a fresh array: events must not share a mutable default
          : () => fallback;
  const nullIsAbsent = field.null === "absent";
  return (record, context) => {
    const value = record[key];
    if (value === undefined) return absent(context);
    if (value === null && nullIsAbsent) {
      nullAsAbsent(key, context);
      return absent(context);
    }
    return read(value, key, context);
  };
}

interface KindValidator {
  readonly kind: string;
  readonly keys: readonly string[];
  readonly validators: readonly FieldValidator[];
  /** Keys whose validated value replaces the parsed one when the parsed object is reused. */
  readonly replaced: readonly boolean[];
  /** The validated values of the line being decoded (never re-entered). */
  readonly values: unknown[];
}

/** Defaults fill absent keys; string maps are replaced by their null-prototype copy. */
function replacedOnReuse(field: FieldLayout): boolean {
  return field.presence === "defaulted" || field.type === "string_map";
}

/** A kind's generated validator: the whole of validateKind, straight-line. */
type GeneratedValidator = (record: JsonRecord, context: DecodeContext) => TraceEvent;

/** Source of `v<index>`: the value of one key, as fieldValidator computes it. */
function fieldSource(field: FieldLayout, index: number, constants: SourceConstants): string {
  const key = sourceString(field.key);
  const variants = field.type === "enum" ? `, ${constants.ref(field.variants ?? [])}` : "";
  const read = `read_${field.type}(value, ${key}${variants}, context)`;
  const absent =
    field.presence === "required"
      ? `missingField(context, ${key})`
      : field.presence === "optional"
        ? "undefined"
        : Array.isArray(field.default)
          ? "[]"
          : constants.ref(field.default);
  let source = `value = record[${key}];\nlet v${index};\nif (value === undefined) v${index} = ${absent};\n`;
  if (field.null === "absent") {
    source += `else if (value === null) {\nnullAsAbsent(${key}, context);\nv${index} = ${absent};\n}\n`;
  }
  source += `else v${index} = ${read};\n`;
  if (field.presence === "optional") source += `const h${index} = v${index} !== undefined;\n`;
  return source;
}

/** The generated validator of every kind, or undefined where code generation is forbidden. */
function compileGeneratedValidators(
  layouts: EventLayoutTable,
  compile: SourceCompiler | undefined,
): Readonly<Record<string, GeneratedValidator>> | undefined {
  const constants = new SourceConstants();
  let source = "const validators = Object.create(null);\n";
  for (const layout of Object.values(layouts)) {
    let body = "let value;\n";
    let reuse = "";
    layout.fields.forEach((field, index) => {
      body += fieldSource(field, index, constants);
      if (replacedOnReuse(field)) reuse += `record[${sourceString(field.key)}] = v${index};\n`;
    });
    body += `if (canReuse(context)) {\n${reuse}return record;\n}\n${eventReturnSource(layout)}`;
    source += `validators[${sourceString(layout.kind)}] = function (record, context) {\n${body}};\n`;
  }
  const bindings = {
    C: constants.values,
    canReuse,
    missingField,
    nullAsAbsent,
    ...Object.fromEntries(Object.entries(READERS).map(([type, read]) => [`read_${type}`, read])),
  };
  return generatedFunction(bindings, `${source}return validators;\n`, compile);
}

function kindValidator(kind: string, fields: readonly FieldLayout[]): KindValidator {
  return {
    kind,
    keys: fields.map((field) => field.key),
    validators: fields.map(fieldValidator),
    replaced: fields.map(replacedOnReuse),
    values: fields.map(() => undefined),
  };
}

/**
 * Validates every key first (in table order), then either returns the parsed object itself — when
 * the line was proven compact, with no unknown keys and no nulls, only absent defaults need filling
 * in — or builds a fresh object of the zod output's shape, keys in table order.
 */
function validateKind(validator: KindValidator, record: JsonRecord, context: DecodeContext): TraceEvent {
  const { keys, validators, values, replaced } = validator;
  const count = keys.length;
  for (let index = 0; index < count; index++) {
    values[index] = (validators[index] as FieldValidator)(record, context);
  }
  if (canReuse(context)) {
    for (let index = 0; index < count; index++) {
      if (replaced[index]) record[keys[index] as string] = values[index];
    }
    return record as unknown as TraceEvent;
  }
  const event: JsonRecord = { kind: validator.kind };
  for (let index = 0; index < count; index++) {
    const value = values[index];
    if (value !== undefined) event[keys[index] as string] = value;
  }
  return event as unknown as TraceEvent;
}

/** The validators of every kind of `layouts`. @internal */
export function compileRecordValidator(
  layouts: EventLayoutTable,
  compile?: SourceCompiler,
): (record: JsonRecord, context: DecodeContext) => TraceEvent {
  const generated = compileGeneratedValidators(layouts, compile);
  if (generated !== undefined) {
    return (record, context) => {
      const validator = generated[context.kind];
      return validator === undefined ? unknownKind(record) : validator(record, context);
    };
  }
  const validators = new Map<string, KindValidator>();
  for (const layout of Object.values(layouts)) {
    validators.set(layout.kind, kindValidator(layout.kind, layout.fields));
  }
  return (record, context) => {
    const validator = validators.get(context.kind);
    return validator === undefined ? unknownKind(record) : validateKind(validator, record, context);
  };
}

/** The error of a record whose kind no layout has. */
function unknownKind(record: JsonRecord): never {
  const kind = record.kind;
  if (kind === undefined) return missingField(newContext("event", null), "kind");
  if (typeof kind !== "string") {
    throw new LineFailure(
      "invalid_type",
      `invalid type: ${describeValue(kind)}, expected an event kind`,
      "kind",
    );
  }
  return unknownVariant(kind, EVENT_KINDS, "kind");
}

const validate = compileRecordValidator(EVENT_LAYOUTS);

/** Validates `record` as an event of `context.kind`; throws a LineFailure for the first defect. */
export function validateRecord(record: JsonRecord, context: DecodeContext): TraceEvent {
  return validate(record, context);
}
