// The string serializers of the record lines, built from the layout table and the line plans
// (line-plans.ts): each validates every value first, in the table's order (a clock reading last,
// once everything else is valid), throwing a WriterInputError that names the record's field, then
// returns the canonical line with LF. They are generated straight-line code (the schema's
// generatedFunction; closures over the plan measured 1.7–2.4x slower), with those closures as the
// fallback where code generation is forbidden. Memory sessions, and every line the byte path
// (byte-lines.ts) declines, take this path.
import { resolveStorageBytes } from "@cg/memory";
import { generatedFunction, type SourceCompiler, SourceConstants, sourceString } from "@cg/schema/codegen";
import type { FieldLayout, U64 } from "@cg/schema/core";
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

/** The checking text encoder of `field`'s wire type. */
export function encoderOf(field: FieldLayout): Encoder {
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

/** The closures of `textLine`, for where code generation is forbidden. */
function textLineClosures(plan: LinePlan): TextLine {
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

const ENCODER_NAMES: Partial<Record<FieldLayout["type"], string>> = {
  string: "jsonString",
  u64: "u64Text",
  boolean: "booleanText",
  enum: "enumText",
  strings: "stringArrayText",
  shape: "shapeText",
};

/** `name(value, field)` for the encoder of `field`'s type (enums also take their variants). */
function encodeSource(constants: SourceConstants, field: FieldLayout, value: string, name: string): string {
  const encoder = ENCODER_NAMES[field.type];
  if (encoder === undefined) throw new Error(`the writer has no serializer for ${field.type} (${field.key})`);
  if (field.type !== "enum") return `${encoder}(${value}, ${sourceString(name)})`;
  // The quoted literal of each variant, looked up first; enumText checks and names what is not one.
  const variants = field.variants ?? [];
  const literals = constants.ref(new Map(variants.map((variant) => [variant, JSON.stringify(variant)])));
  return `(${literals}.get(${value}) ?? enumText(${value}, ${constants.ref(variants)}, ${sourceString(name)}))`;
}

/** The generated source of a plan's string serializer. */
function textLineSource(constants: SourceConstants, plan: LinePlan): string {
  const { layout, sources } = plan;
  const fields = layout.fields;
  let body = `if (typeof record !== "object" || record === null) throw invalidField(${sourceString(`${layout.kind} record`)}, "an object", record);\n`;
  let clock = "";
  /** The line's pieces: constant text (merged while adjacent) and `t<i>` expressions. */
  const parts: { text?: string; expression?: string }[] = [
    { text: `{"kind":${JSON.stringify(layout.kind)}` },
  ];
  const constant = (text: string) => {
    const last = parts.at(-1);
    if (last?.text !== undefined) last.text += text;
    else parts.push({ text });
  };
  fields.forEach((field, at) => {
    const source = sources[at] as ValueSource;
    const key = `,${JSON.stringify(field.key)}:`;
    const value = `v${at}`;
    let text: string;
    switch (source.from) {
      case "span":
        text = "spanIdJson";
        break;
      case "action":
        text = encodeSource(constants, field, "action", field.key);
        break;
      case "storage": {
        const [shape, dtype] = storageInputs(plan);
        body += `const ${value} = record.storageBytes;\n`;
        text = `${value} === undefined ? resolvedText(resolveStorageBytes(undefined, record.${shape} ?? [], record.${dtype})) : u64Text(${value}, "storageBytes")`;
        break;
      }
      case "clock":
        body += `const ${value} = record.${source.property};\n`;
        clock = `const t${at} = ${value} === undefined ? integerDigits(now()) : u64Text(${value}, ${sourceString(source.property)});\n`;
        constant(key);
        parts.push({ expression: `t${at}` });
        return;
      case "record": {
        body += `const ${value} = record.${source.property};\n`;
        const encoded = encodeSource(constants, field, value, source.property);
        text =
          field.presence === "required"
            ? encoded
            : field.presence === "defaulted"
              ? `${value} === undefined ? ${sourceString(defaultText(field))} : ${encoded}`
              : `${value} === undefined ? "" : ${sourceString(key)} + ${encoded}`;
        if (field.presence === "optional") {
          body += `const t${at} = ${text};\n`;
          parts.push({ expression: `t${at}` });
          return;
        }
      }
    }
    body += `const t${at} = ${text};\n`;
    constant(key);
    parts.push({ expression: `t${at}` });
  });
  constant("}\n");
  const line = parts.map((part) => part.expression ?? sourceString(part.text ?? "")).join(" + ");
  return `${body}${clock}return ${line};\n`;
}

/** The string serializer of a plan. */
export function textLine(plan: LinePlan, compile?: SourceCompiler): TextLine {
  const constants = new SourceConstants();
  const body = `return function (record, spanIdJson, action, now) {\n${textLineSource(constants, plan)}};\n`;
  const bindings = {
    C: constants.values,
    booleanText,
    enumText,
    integerDigits,
    invalidField,
    jsonString,
    resolveStorageBytes,
    resolvedText,
    shapeText,
    stringArrayText,
    u64Text,
  };
  return generatedFunction<TextLine>(bindings, body, compile) ?? textLineClosures(plan);
}
