// Builds the JSON Schema (draft 2020-12) of one trace/6 line from the layout table (EVENT_LAYOUTS):
// keys, wire types, enums, required keys, defaults and where `null` reads as absent all come from
// the table, so the schema cannot drift from the decoders and encoders.
// JSON Schema validates the parsed JSON value, so it cannot see duplicate keys, the literal form
// of numbers (`5e3` is the integer 5000 to it) or integers beyond 2^53 once parsed to doubles.
import { EVENT_LAYOUTS, type EventLayoutTable, type FieldLayout, SCHEMA } from "../src/index.js";

/** Placeholder replaced by the exact digits of 2^64 − 1 when the file is written. */
export const U64_MAX_PLACEHOLDER = "__U64_MAX__";

type JsonSchema = Record<string, unknown>;

/** Prose that the table does not carry: what each kind is, and notes on a few keys. */
const KIND_DESCRIPTIONS: Record<string, string> = {
  meta: "Run metadata, exactly one, first non-blank line (spec §2.2).",
  span_start: "Opens a span (spec §2.3).",
  span_end: "Closes a span (spec §2.4).",
  op: "A timed operation (spec §2.5).",
  tensor: "Tensor metadata (spec §2.6).",
  memory: "An explicit allocation or free (spec §2.7).",
  device_memory: "A device / allocator memory checkpoint (spec §2.8).",
  gradient: "A parameter gradient fact (spec §2.9).",
  edge: "A timed data-flow edge between two spans (spec §2.10).",
};
const FIELD_DESCRIPTIONS: Record<string, string> = {
  "meta.schema": `Must equal "${SCHEMA}" (checked by readers after the line stage).`,
  "gradient.norm": "Any finite number; integers read as floats.",
};

function valueSchema(field: FieldLayout): JsonSchema {
  switch (field.type) {
    case "string":
      return { type: "string" };
    case "u64":
      return { $ref: "#/$defs/u64" };
    case "boolean":
      return { type: "boolean" };
    case "f64":
      return { type: "number" };
    case "enum":
      return { type: "string", enum: [...(field.variants ?? [])] };
    case "strings":
      return { type: "array", items: { type: "string" } };
    case "shape":
      return { $ref: "#/$defs/shape" };
    case "string_map":
      return { $ref: "#/$defs/tags" };
  }
}

function eventSchema(kind: string, fields: readonly FieldLayout[]): JsonSchema {
  const properties: Record<string, JsonSchema> = { kind: { const: kind } };
  const required = ["kind"];
  for (const field of fields) {
    let schema = valueSchema(field);
    if (field.null === "absent") schema = { anyOf: [schema, { type: "null" }] };
    if (field.presence === "defaulted") schema = { ...schema, default: field.default };
    const description = FIELD_DESCRIPTIONS[`${kind}.${field.key}`];
    if (description !== undefined) schema = { description, ...schema };
    properties[field.key] = schema;
    if (field.presence === "required") required.push(field.key);
  }
  // Unknown keys are allowed whatever their value (spec §2.1), so no additionalProperties: false.
  const description = KIND_DESCRIPTIONS[kind] ?? `The \`${kind}\` event.`;
  return { title: kind, description, type: "object", properties, required };
}

/** The JSON Schema of one trace/6 line, as a plain object (u64 maximum as a placeholder). */
export function buildTraceJsonSchema(layouts: EventLayoutTable = EVENT_LAYOUTS): JsonSchema {
  const kinds = Object.keys(layouts);
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "urn:candle-graph:trace:6:line",
    title: `${SCHEMA} line`,
    description:
      "One line of a candle-graph/trace/6 JSONL trace. JSON Schema cannot express: duplicate keys (a repeated known key is rejected by readers, a repeated unknown key is ignored, and every repeated tags value must be a string), the literal form of integers (5e3, 5000.0 and -0 are rejected by readers), exact values beyond 2^53 once parsed to doubles, and escaped lone surrogates. Use decodeTraceLine from @cg/schema for the full rules.",
    type: "object",
    required: ["kind"],
    properties: { kind: { enum: kinds } },
    oneOf: kinds.map((kind) => ({ $ref: `#/$defs/${kind}` })),
    $defs: {
      u64: {
        description: "Unsigned 64-bit integer written as digits only (no sign, fraction or exponent).",
        type: "integer",
        minimum: 0,
        maximum: U64_MAX_PLACEHOLDER,
      },
      shape: { type: "array", items: { $ref: "#/$defs/u64" } },
      tags: { type: "object", additionalProperties: { type: "string" } },
      ...Object.fromEntries(kinds.map((kind) => [kind, eventSchema(kind, layouts[kind]?.fields ?? [])])),
    },
  };
}

/** The file text: 2-space JSON with the exact digits of 2^64 − 1, ending in a newline. */
export function renderTraceJsonSchema(): string {
  const text = JSON.stringify(buildTraceJsonSchema(), null, 2);
  return `${text.replace(`"${U64_MAX_PLACEHOLDER}"`, "18446744073709551615")}\n`;
}
