// Builds the JSON Schema (draft 2020-12) of one trace/6 line from the spec §2 tables. The enums
// come from the package's own const arrays, so the schema cannot drift from the wire contract.
// JSON Schema validates the parsed JSON value, so it cannot see duplicate keys, the literal form
// of numbers (`5e3` is the integer 5000 to it) or integers beyond 2^53 once parsed to doubles.
import {
  EVENT_KINDS,
  EXECUTION_PHASES,
  EXECUTION_STEPS,
  GRADIENT_STATES,
  MEMORY_ACTIONS,
  MEMORY_CATEGORIES,
  SCHEMA,
  SPAN_KINDS,
  TIMING_MODES,
} from "../src/index.js";

/** Placeholder replaced by the exact digits of 2^64 − 1 when the file is written. */
export const U64_MAX_PLACEHOLDER = "__U64_MAX__";

type JsonSchema = Record<string, unknown>;

const U64: JsonSchema = { $ref: "#/$defs/u64" };
const STRING: JsonSchema = { type: "string" };
const BOOLEAN: JsonSchema = { type: "boolean" };
const SHAPE: JsonSchema = { $ref: "#/$defs/shape" };
const enumOf = (values: readonly string[]): JsonSchema => ({ type: "string", enum: [...values] });
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: "null" }] });

interface Field {
  key: string;
  schema: JsonSchema;
  /** "required"; "default" with the value readers use; "optional": absent, and `null` reads as absent. */
  presence: "required" | "optional" | { default: unknown };
  description?: string;
}

const events: Record<(typeof EVENT_KINDS)[number], { description: string; fields: Field[] }> = {
  meta: {
    description: "Run metadata, exactly one, first non-blank line (spec §2.2).",
    fields: [
      {
        key: "schema",
        schema: STRING,
        presence: "required",
        description: `Must equal "${SCHEMA}" (checked by readers after the line stage).`,
      },
      { key: "run_id", schema: STRING, presence: "required" },
      { key: "correlation_id", schema: STRING, presence: "required" },
      { key: "entrypoint", schema: STRING, presence: "required" },
      { key: "phase", schema: enumOf(EXECUTION_PHASES), presence: "required" },
      { key: "timestamp", schema: STRING, presence: "required" },
      { key: "capture_step", schema: U64, presence: "required" },
      { key: "warmup_steps", schema: U64, presence: "required" },
      { key: "device", schema: STRING, presence: "required" },
      { key: "measured_region_device_synchronized", schema: BOOLEAN, presence: { default: false } },
      { key: "timing_mode", schema: enumOf(TIMING_MODES), presence: "required" },
      { key: "tags", schema: { $ref: "#/$defs/tags" }, presence: "required" },
      { key: "candle_version", schema: STRING, presence: "optional" },
    ],
  },
  span_start: {
    description: "Opens a span (spec §2.3).",
    fields: [
      { key: "id", schema: STRING, presence: "required" },
      { key: "parent_id", schema: STRING, presence: "optional" },
      { key: "name", schema: STRING, presence: "required" },
      { key: "start_ns", schema: U64, presence: "required" },
      { key: "span_kind", schema: enumOf(SPAN_KINDS), presence: "required" },
      { key: "measured", schema: BOOLEAN, presence: { default: false } },
      { key: "step", schema: enumOf(EXECUTION_STEPS), presence: "optional" },
    ],
  },
  span_end: {
    description: "Closes a span (spec §2.4).",
    fields: [
      { key: "id", schema: STRING, presence: "required" },
      { key: "duration_ns", schema: U64, presence: { default: 0 } },
    ],
  },
  op: {
    description: "A timed operation (spec §2.5).",
    fields: [
      { key: "span_id", schema: STRING, presence: "required" },
      { key: "op_name", schema: STRING, presence: "required" },
      { key: "inputs", schema: { type: "array", items: STRING }, presence: { default: [] } },
      { key: "output", schema: STRING, presence: "optional" },
      { key: "shape", schema: SHAPE, presence: { default: [] } },
      { key: "dtype", schema: STRING, presence: "required" },
      { key: "device", schema: STRING, presence: "required" },
      { key: "duration_ns", schema: U64, presence: "required" },
      { key: "timestamp_ns", schema: U64, presence: { default: 0 } },
      { key: "storage_bytes", schema: U64, presence: "optional" },
      { key: "input_storage_bytes", schema: U64, presence: { default: 0 } },
    ],
  },
  tensor: {
    description: "Tensor metadata (spec §2.6).",
    fields: [
      { key: "span_id", schema: STRING, presence: "required" },
      { key: "tensor_id", schema: STRING, presence: "required" },
      { key: "shape", schema: SHAPE, presence: { default: [] } },
      { key: "dtype", schema: STRING, presence: "required" },
      { key: "device", schema: STRING, presence: "required" },
      { key: "requires_grad", schema: BOOLEAN, presence: { default: false } },
      { key: "storage_bytes", schema: U64, presence: "optional" },
      { key: "category", schema: enumOf(MEMORY_CATEGORIES), presence: { default: "other" } },
    ],
  },
  memory: {
    description: "An explicit allocation or free (spec §2.7).",
    fields: [
      { key: "timestamp_ns", schema: U64, presence: "required" },
      { key: "tensor_id", schema: STRING, presence: "required" },
      { key: "span_id", schema: STRING, presence: "required" },
      { key: "op_name", schema: STRING, presence: "optional" },
      { key: "device", schema: STRING, presence: "required" },
      { key: "bytes", schema: U64, presence: "required" },
      { key: "action", schema: enumOf(MEMORY_ACTIONS), presence: "required" },
      { key: "shape", schema: SHAPE, presence: { default: [] } },
      { key: "dtype", schema: STRING, presence: "required" },
      { key: "category", schema: enumOf(MEMORY_CATEGORIES), presence: { default: "other" } },
    ],
  },
  device_memory: {
    description: "A device / allocator memory checkpoint (spec §2.8).",
    fields: [
      { key: "timestamp_ns", schema: U64, presence: "required" },
      { key: "device", schema: STRING, presence: "required" },
      { key: "used_bytes", schema: U64, presence: "required" },
      { key: "free_bytes", schema: U64, presence: "required" },
      { key: "reserved_bytes", schema: U64, presence: "optional" },
    ],
  },
  gradient: {
    description: "A parameter gradient fact (spec §2.9).",
    fields: [
      { key: "event_id", schema: STRING, presence: "required" },
      { key: "root", schema: STRING, presence: "required" },
      { key: "key", schema: STRING, presence: "required" },
      { key: "state", schema: enumOf(GRADIENT_STATES), presence: "required" },
      {
        key: "norm",
        schema: { type: "number" },
        presence: "optional",
        description: "Any finite number; integers read as floats.",
      },
    ],
  },
  edge: {
    description: "A timed data-flow edge between two spans (spec §2.10).",
    fields: [
      { key: "from_span", schema: STRING, presence: "required" },
      { key: "to_span", schema: STRING, presence: "required" },
      { key: "duration_ns", schema: U64, presence: "required" },
    ],
  },
};

function eventSchema(kind: string, description: string, fields: Field[]): JsonSchema {
  const properties: Record<string, JsonSchema> = { kind: { const: kind } };
  const required = ["kind"];
  for (const field of fields) {
    let schema = field.presence === "optional" ? nullable(field.schema) : { ...field.schema };
    if (typeof field.presence === "object") schema = { ...schema, default: field.presence.default };
    if (field.description !== undefined) schema = { description: field.description, ...schema };
    properties[field.key] = schema;
    if (field.presence === "required") required.push(field.key);
  }
  // Unknown keys are allowed whatever their value (spec §2.1), so no additionalProperties: false.
  return { title: kind, description, type: "object", properties, required };
}

/** The JSON Schema of one trace/6 line, as a plain object (u64 maximum as a placeholder). */
export function buildTraceJsonSchema(): JsonSchema {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "urn:candle-graph:trace:6:line",
    title: `${SCHEMA} line`,
    description:
      "One line of a candle-graph/trace/6 JSONL trace. JSON Schema cannot express: duplicate keys (a repeated known key is rejected by readers, a repeated unknown key is ignored, and every repeated tags value must be a string), the literal form of integers (5e3, 5000.0 and -0 are rejected by readers), exact values beyond 2^53 once parsed to doubles, and escaped lone surrogates. Use decodeTraceLine from @cg/schema for the full rules.",
    type: "object",
    required: ["kind"],
    properties: { kind: { enum: [...EVENT_KINDS] } },
    oneOf: EVENT_KINDS.map((kind) => ({ $ref: `#/$defs/${kind}` })),
    $defs: {
      u64: {
        description: "Unsigned 64-bit integer written as digits only (no sign, fraction or exponent).",
        type: "integer",
        minimum: 0,
        maximum: U64_MAX_PLACEHOLDER,
      },
      shape: { type: "array", items: { $ref: "#/$defs/u64" } },
      tags: { type: "object", additionalProperties: { type: "string" } },
      ...Object.fromEntries(
        EVENT_KINDS.map((kind) => [kind, eventSchema(kind, events[kind].description, events[kind].fields)]),
      ),
    },
  };
}

/** The file text: 2-space JSON with the exact digits of 2^64 − 1, ending in a newline. */
export function renderTraceJsonSchema(): string {
  const text = JSON.stringify(buildTraceJsonSchema(), null, 2);
  return `${text.replace(`"${U64_MAX_PLACEHOLDER}"`, "18446744073709551615")}\n`;
}
