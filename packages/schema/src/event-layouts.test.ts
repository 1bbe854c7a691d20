// EVENT_LAYOUTS is the single source of the wire layout. Two kinds of checks:
// 1. A MODIFIED table (a field added, fields reordered) is followed by every artefact derived from
//    a table: the zod schema and its TypeScript type, the JSON Schema, the canonical encoder, the
//    canonical reader's key literals and the known-key sets of the duplicate rule.
// 2. The hand-written decoders (canonical bytes, compact text, any JSON) agree with the real table
//    on every key of every kind: what a missing key, a `null` and a wrong type mean, the defaults,
//    and the key order of canonical lines.
import { describe, expect, expectTypeOf, it } from "vitest";
import { buildTraceJsonSchema } from "../scripts/trace-json-schema.js";
import { kindLiterals, memberLiterals } from "./canonical-key-literals.js";
import { decodeAnyJson } from "./decode-any-json.js";
import { decodeCanonicalLine } from "./decode-canonical-bytes.js";
import { decodeTraceLine } from "./decode-trace-line.js";
import { encodeTraceEvent, encodeWithLayout } from "./encode-events.js";
import {
  EVENT_LAYOUTS,
  type EventLayout,
  type EventLayoutTable,
  type FieldLayout,
  knownKeySets,
} from "./event-layouts.js";
import type { TraceEvent } from "./events.js";
import type { U64 } from "./u64.js";
import { type EventOfLayout, zodSchemaOf } from "./zod-from-layout.js";

const opFields = EVENT_LAYOUTS.op.fields;
/** `op` gains `queue_ns` (optional u64) after `inputs`; `span_end` lists `duration_ns` first. */
const MODIFIED = {
  ...EVENT_LAYOUTS,
  op: {
    kind: "op",
    fields: [
      opFields[0],
      opFields[1],
      opFields[2],
      { key: "queue_ns", type: "u64", presence: "optional", null: "absent" },
      ...opFields.slice(3),
    ],
  },
  span_end: {
    kind: "span_end",
    fields: [EVENT_LAYOUTS.span_end.fields[1], EVENT_LAYOUTS.span_end.fields[0]],
  },
} as const satisfies EventLayoutTable;

const op = {
  kind: "op",
  span_id: "s1",
  op_name: "mm",
  inputs: ["a"],
  queue_ns: 7,
  shape: [2],
  dtype: "f32",
  device: "cpu",
  duration_ns: 5,
  timestamp_ns: 9,
  input_storage_bytes: 0,
} as const;

describe("a modified table is followed by every derived artefact", () => {
  it("zod schema and TypeScript type", () => {
    const schema = zodSchemaOf(MODIFIED.op);
    expect(Object.keys(schema.shape)).toEqual(["kind", ...MODIFIED.op.fields.map((field) => field.key)]);
    expect(schema.parse(op).queue_ns).toBe(7);
    expect(schema.parse({ ...op, queue_ns: null }).queue_ns).toBeUndefined();
    expect(schema.safeParse({ ...op, queue_ns: "7" }).success).toBe(false);
    expect(zodSchemaOf(EVENT_LAYOUTS.op).parse(op)).not.toHaveProperty("queue_ns");
    expectTypeOf<EventOfLayout<typeof MODIFIED.op>["queue_ns"]>().toEqualTypeOf<U64 | undefined>();
    expectTypeOf<EventOfLayout<typeof MODIFIED.op>["inputs"]>().toEqualTypeOf<string[]>();
    expectTypeOf<EventOfLayout<typeof EVENT_LAYOUTS.op>>().not.toHaveProperty("queue_ns");
  });

  it("JSON Schema", () => {
    const defs = buildTraceJsonSchema(MODIFIED).$defs as Record<
      string,
      { properties: Record<string, unknown>; required: string[] }
    >;
    expect(Object.keys(defs.op?.properties ?? {})).toEqual([
      "kind",
      ...MODIFIED.op.fields.map((field) => field.key),
    ]);
    expect(defs.op?.properties.queue_ns).toEqual({ anyOf: [{ $ref: "#/$defs/u64" }, { type: "null" }] });
    expect(defs.op?.required).not.toContain("queue_ns");
    expect(Object.keys(defs.span_end?.properties ?? {})).toEqual(["kind", "duration_ns", "id"]);
  });

  it("canonical encoder", () => {
    expect(encodeWithLayout(MODIFIED.op, op)).toBe(
      '{"kind":"op","span_id":"s1","op_name":"mm","inputs":["a"],"queue_ns":7,"shape":[2],"dtype":"f32","device":"cpu","duration_ns":5,"timestamp_ns":9,"input_storage_bytes":0}',
    );
    expect(encodeWithLayout(MODIFIED.span_end, { kind: "span_end", id: "a", duration_ns: 3 })).toBe(
      '{"kind":"span_end","duration_ns":3,"id":"a"}',
    );
    // The line reads back through the modified schema unchanged.
    const line = encodeWithLayout(MODIFIED.op, op);
    expect(zodSchemaOf(MODIFIED.op).parse(JSON.parse(line))).toEqual(op);
  });

  it("canonical reader key literals and the duplicate rule", () => {
    expect(memberLiterals(MODIFIED).queue_ns).toBe(',"queue_ns":');
    expect(kindLiterals(MODIFIED).span_end).toBe('span_end","duration_ns":');
    expect(kindLiterals(EVENT_LAYOUTS).span_end).toBe('span_end","id":');
    expect(knownKeySets(MODIFIED).get("op")?.has("queue_ns")).toBe(true);
    expect(knownKeySets(EVENT_LAYOUTS).get("op")?.has("queue_ns")).toBe(false);
  });
});

/** A valid value of a field's wire type, different from its default where it has one. */
function sampleValue(field: FieldLayout): unknown {
  switch (field.type) {
    case "string":
      return `v-${field.key}`;
    case "u64":
      return 7;
    case "boolean":
      return true;
    case "f64":
      return 0.5;
    case "enum":
      return field.variants?.at(-1);
    case "strings":
      return ["a", "b"];
    case "shape":
      return [2, 3];
    case "string_map":
      return { b: "2", a: "1" };
  }
}

/** A value of another wire type, which every decoder must reject for the field. */
function wrongValue(field: FieldLayout): unknown {
  return field.type === "string" || field.type === "enum" || field.type === "string_map" ? 5 : "5";
}

function fullEvent(layout: EventLayout): Record<string, unknown> {
  const event: Record<string, unknown> = { kind: layout.kind };
  for (const field of layout.fields) event[field.key] = sampleValue(field);
  if (layout.kind === "meta") event.schema = "candle-graph/trace/6";
  return event;
}

function lineWith(layout: EventLayout, key: string, value: unknown): string {
  const event = fullEvent(layout);
  if (value === undefined) delete event[key];
  else event[key] = value;
  return JSON.stringify(event);
}

function decodeBoth(line: string, kind: string) {
  const result = decodeTraceLine(line);
  let exact: unknown;
  try {
    exact = decodeAnyJson(line, JSON.parse(line), kind);
  } catch (error) {
    exact = error;
  }
  return { result, exact };
}

const cases = Object.values(EVENT_LAYOUTS).flatMap((layout) =>
  layout.fields.map((field) => [`${layout.kind}.${field.key}`, layout, field] as const),
);

describe("the hand-written decoders agree with the table", () => {
  it.each(cases)("%s: absent, null and a wrong type", (name, layout, field) => {
    const absent = decodeBoth(lineWith(layout, field.key, undefined), layout.kind);
    if (field.presence === "required") {
      expect(absent.result.ok ? undefined : absent.result.error).toMatchObject({
        code: "missing_field",
        field: name,
      });
    } else {
      expect(absent.result.ok).toBe(true);
      const event = absent.result.ok ? (absent.result.event as Record<string, unknown>) : {};
      if (field.presence === "defaulted") expect(event[field.key]).toEqual(field.default);
      else expect(field.key in event).toBe(false);
      expect(absent.exact).toEqual(event);
    }

    const nulled = decodeBoth(lineWith(layout, field.key, null), layout.kind);
    if (field.null === "absent") {
      expect(nulled.result.ok).toBe(true);
      expect(nulled.result.ok && field.key in nulled.result.event).toBe(false);
    } else {
      expect(nulled.result.ok ? undefined : nulled.result.error.field).toBe(name);
      expect(nulled.result.ok ? undefined : nulled.result.error.message).toContain("null");
    }

    const wrong = decodeBoth(lineWith(layout, field.key, wrongValue(field)), layout.kind);
    expect(wrong.result.ok ? undefined : wrong.result.error.field).toBe(name);
  });

  it.each(Object.values(EVENT_LAYOUTS).map((layout) => [layout.kind, layout] as const))(
    "%s: a full line decodes to every key, and its canonical encoding is the table's order",
    (_kind, layout) => {
      const line = JSON.stringify(fullEvent(layout));
      const result = decodeTraceLine(line);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      const event = result.event as TraceEvent;
      const keys = ["kind", ...layout.fields.map((field) => field.key)];
      expect(Object.keys(event).sort()).toEqual([...keys].sort());
      const canonical = encodeTraceEvent(event);
      expect(Object.keys(JSON.parse(canonical))).toEqual(keys);
      // The canonical byte reader reads the canonical line (every kind but meta) in table order.
      const fromBytes = decodeCanonicalLine(new TextEncoder().encode(canonical));
      if (layout.kind === "meta") expect(fromBytes).toBeUndefined();
      else {
        expect(fromBytes).toEqual(event);
        expect(Object.keys(fromBytes ?? {})).toEqual(keys);
      }
    },
  );
});
