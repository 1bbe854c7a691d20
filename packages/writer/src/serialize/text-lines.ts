// The string serializers of the record lines, built from the layout table and the line plans
// (line-plans.ts): each validates every value first, in the table's order (a clock reading last,
// once everything else is valid), throwing a WriterInputError that names the record's field, then
// returns the canonical line with LF. They are closures, so they work where code generation is
// forbidden; the byte path (byte-lines.ts) takes the common case.
import { resolveStorageBytes } from "@cg/memory";
import type { FieldLayout, U64 } from "@cg/schema";
import { integerDigits } from "./integer-digits.js";
import {
  booleanText,
  enumText,
  invalidField,
  jsonString,
  shapeText,
  stringArrayText,
  u64Text,
} from "./json-parts.js";
import type { LinePlan, ValueSource } from "./line-plans.js";

/** The record, the span id as JSON text, the memory action and the clock, as a line needs them. */
export type TextLine = (
  record: Readonly<Record<string, unknown>>,
  spanIdJson: string,
  action: string | undefined,
  now: () => number,
) => string;

export function resolvedText(value: U64): string {
  return typeof value === "number" ? integerDigits(value) : value.toString();
}

type Encoder = (value: unknown, field: string) => string;

function encoderOf(field: FieldLayout): Encoder {
  switch (field.type) {
    case "string":
      return jsonString;
    case "u64":
      return u64Text;
    case "boolean":
      return booleanText;
    case "enum": {
      const variants = field.variants ?? [];
      return (value, name) => enumText(value, variants, name);
    }
    case "strings":
      return stringArrayText;
    case "shape":
      return shapeText;
    default:
      throw new Error(`the writer has no serializer for ${field.type} (${field.key})`);
  }
}

/** The JSON text of a defaulted key's default. */
export function defaultText(field: FieldLayout): string {
  return Array.isArray(field.default) ? "[]" : JSON.stringify(field.default);
}

/** The text of one key's value, or undefined to leave an absent optional key out. */
type Piece = (
  record: Readonly<Record<string, unknown>>,
  spanIdJson: string,
  action: string | undefined,
) => string | undefined;

function recordPiece(field: FieldLayout, property: string): Piece {
  const encode = encoderOf(field);
  if (field.presence === "optional") {
    return (record) => (record[property] === undefined ? undefined : encode(record[property], property));
  }
  if (field.presence === "defaulted") {
    const fallback = defaultText(field);
    return (record) => (record[property] === undefined ? fallback : encode(record[property], property));
  }
  return (record) => encode(record[property], property);
}

/** The record properties of the keys `shape` and `dtype`, which a derived storage size needs. */
function storageInputs(plan: LinePlan): readonly [string, string] {
  const property = (key: string): string => {
    const source = plan.sources[plan.layout.fields.findIndex((field) => field.key === key)];
    if (source?.from !== "record") throw new Error(`a derived storage size needs the record's ${key}`);
    return source.property;
  };
  return [property("shape"), property("dtype")];
}

function piece(plan: LinePlan, field: FieldLayout, source: ValueSource): Piece {
  switch (source.from) {
    case "record":
      return recordPiece(field, source.property);
    case "span":
      return (_record, spanIdJson) => spanIdJson;
    case "action": {
      const encode = encoderOf(field);
      return (_record, _span, action) => encode(action, field.key);
    }
    case "storage": {
      const [shape, dtype] = storageInputs(plan);
      return (record) =>
        record.storageBytes === undefined
          ? resolvedText(
              resolveStorageBytes(undefined, (record[shape] ?? []) as U64[], record[dtype] as string),
            )
          : u64Text(record.storageBytes, "storageBytes");
    }
    case "clock":
      return () => undefined; // written after every other key was checked (see textLine)
  }
}

/** The string serializer of a plan. */
export function textLine(plan: LinePlan): TextLine {
  const { layout, sources } = plan;
  const keys = layout.fields.map((field) => `,${JSON.stringify(field.key)}:`);
  const pieces = layout.fields.map((field, index) => piece(plan, field, sources[index] as ValueSource));
  const clockIndex = sources.findIndex((source) => source.from === "clock");
  const clock = sources[clockIndex];
  const clockProperty = clock?.from === "clock" ? clock.property : "";
  const head = `{"kind":${JSON.stringify(layout.kind)}`;
  const what = `${layout.kind} record`;
  return (record, spanIdJson, action, now) => {
    if (typeof record !== "object" || record === null) throw invalidField(what, "an object", record);
    const texts = pieces.map((read) => read(record, spanIdJson, action));
    if (clockIndex >= 0) {
      const value = record[clockProperty];
      texts[clockIndex] = value === undefined ? integerDigits(now()) : u64Text(value, clockProperty);
    }
    let line = head;
    for (let index = 0; index < texts.length; index++) {
      const text = texts[index];
      if (text !== undefined) line += keys[index] + text;
    }
    return `${line}}\n`;
  };
}
