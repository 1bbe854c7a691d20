// EVENT_LAYOUTS is the single source of the wire layout. Two kinds of checks:
// 1. A MODIFIED table (a field added, fields reordered) is followed by every artefact derived from
//    a table: the zod schema and its TypeScript type, the JSON Schema, the canonical encoder, the
//    canonical byte reader (also where code generation is forbidden), the plain compact-text
//    validators, the text tiers' validators and the known-key sets of the duplicate rule. (The
//    writer's serializers: packages/writer/src/serialize/wire-layout.test.ts.)
// 2. The decoders (canonical bytes, compact text, any JSON) agree with the real table on every key
//    of every kind: what a missing key, a `null` and a wrong type mean, the defaults, and the key
//    order of canonical lines.
import { describe, expect, expectTypeOf, it } from "vitest";
import { buildTraceJsonSchema } from "../scripts/trace-json-schema.js";
import { decodeAnyJson } from "./decode-any-json.js";
import { canonicalLineDecoder, decodeCanonicalLine } from "./decode-canonical-bytes.js";
import { compilePlainCompactText } from "./decode-plain-compact-text.js";
import { decodeTraceLine } from "./decode-trace-line.js";
import { newContext } from "./decode-values.js";
import { encodeTraceEvent, encodeWithLayout } from "./encode-events.js";
import {
  EVENT_LAYOUTS,
  type EventLayout,
  type EventLayoutTable,
  type FieldLayout,
  knownKeySets,
} from "./event-layouts.js";
import { compileRecordValidator } from "./event-validators.js";
import type { TraceEvent } from "./events.js";
import type { SourceCompiler } from "./generated-function.js";
import { LineFailure } from "./line-decode-error.js";
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

/** What a page whose Content Security Policy forbids code generation does to `new Function`. */
const forbidden: SourceCompiler = () => {
  throw new EvalError("Code generation from strings disallowed for this context");
};

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

  const bytes = (line: string) => new TextEncoder().encode(line);
  const opLine = encodeWithLayout(MODIFIED.op, op);
  const { queue_ns: _queue, ...opWithoutQueue } = op;
  const opLineWithoutQueue = encodeWithLayout(MODIFIED.op, opWithoutQueue);
  const spanEndLine = '{"kind":"span_end","duration_ns":3,"id":"a"}';

  it("canonical byte reader", () => {
    const decode = canonicalLineDecoder(MODIFIED);
    const event = decode(bytes(opLine));
    expect(event).toEqual(op);
    expect(Object.keys(event ?? {})).toEqual(Object.keys(op));
    expect(decode(bytes(opLineWithoutQueue))).toEqual(opWithoutQueue);
    expect(decode(bytes(opLine.replace('"queue_ns":7', '"queue_ns":"7"')))).toBeUndefined();
    expect(Object.keys(decode(bytes(spanEndLine)) ?? {})).toEqual(["kind", "duration_ns", "id"]);
    // The old order is no longer canonical for the modified table, and the real table is unchanged.
    expect(decode(bytes('{"kind":"span_end","id":"a","duration_ns":3}'))).toBeUndefined();
    expect(decodeCanonicalLine(bytes(opLine))).toBeUndefined();
    expect(decodeCanonicalLine(bytes(spanEndLine))).toBeUndefined();
    expect(decodeCanonicalLine(bytes(opLineWithoutQueue))).toEqual(opWithoutQueue);
  });

  it("plain compact-text validators", () => {
    const plain = compilePlainCompactText(MODIFIED);
    expect(plain(opLine, JSON.parse(opLine), "op")).toEqual(op);
    expect(plain(opLineWithoutQueue, JSON.parse(opLineWithoutQueue), "op")).toEqual(opWithoutQueue);
    const quoted = opLine.replace('"queue_ns":7', '"queue_ns":"7"');
    expect(plain(quoted, JSON.parse(quoted), "op")).toBeUndefined();
    expect(plain(spanEndLine, JSON.parse(spanEndLine), "span_end")).toEqual({
      kind: "span_end",
      id: "a",
      duration_ns: 3,
    });
    // For the real table `queue_ns` is an unknown key: the length proof fails.
    const real = compilePlainCompactText(EVENT_LAYOUTS);
    expect(real(opLine, JSON.parse(opLine), "op")).toBeUndefined();
  });

  it.each([
    ["generated", undefined],
    ["closures (code generation forbidden)", forbidden],
  ] as const)("the text tiers' validators: %s", (_name, compile) => {
    const validate = compileRecordValidator(MODIFIED, compile);
    const run = (record: Record<string, unknown>) => {
      try {
        return validate(record, newContext(String(record.kind), null));
      } catch (error) {
        return error;
      }
    };
    expect(run({ ...op, queue_ns: 7 })).toEqual(op);
    expect(run({ ...op, queue_ns: null })).toEqual(opWithoutQueue);
    expect(run({ ...op, queue_ns: "7" })).toMatchObject({ field: "op.queue_ns", code: "expected_u64" });
    expect(run({ ...op, queue_ns: -1 })).toBeInstanceOf(LineFailure);
    const spanEnd = run({ kind: "span_end", id: "a" });
    expect(spanEnd).toEqual({ kind: "span_end", duration_ns: 0, id: "a" });
    expect(Object.keys(spanEnd as object)).toEqual(["kind", "duration_ns", "id"]);
    // The real table ignores `queue_ns`, whatever its value.
    const real = compileRecordValidator(EVENT_LAYOUTS, compile);
    expect(real({ ...op, queue_ns: "7" }, newContext("op", null))).toEqual(opWithoutQueue);
  });

  it("where code generation is forbidden, the generated tiers decline and the rest decides", () => {
    expect(canonicalLineDecoder(MODIFIED, forbidden)(bytes(opLine))).toBeUndefined();
    expect(compilePlainCompactText(MODIFIED, forbidden)(opLine, JSON.parse(opLine), "op")).toBeUndefined();
    // A generator fault is not mistaken for a forbidden environment.
    const broken: SourceCompiler = () => {
      throw new SyntaxError("Unexpected token");
    };
    expect(() => canonicalLineDecoder(MODIFIED, broken)).toThrow(SyntaxError);
  });

  it("the duplicate rule's known keys", () => {
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

const closureValidator = compileRecordValidator(EVENT_LAYOUTS, forbidden);

function decodeBoth(line: string, kind: string) {
  const result = decodeTraceLine(line);
  let exact: unknown;
  try {
    exact = decodeAnyJson(line, JSON.parse(line), kind);
  } catch (error) {
    exact = error;
  }
  // The closures that stand in for the generated validators where code generation is forbidden
  // give the same event or the same error.
  let closures: unknown;
  try {
    closures = closureValidator(JSON.parse(line), newContext(kind, null));
  } catch (error) {
    closures = error;
  }
  if (exact instanceof LineFailure) expect(closures).toEqual(exact);
  else expect(closures).toEqual(exact);
  return { result, exact };
}

const cases = Object.values(EVENT_LAYOUTS).flatMap((layout) =>
  layout.fields.map((field) => [`${layout.kind}.${field.key}`, layout, field] as const),
);

describe("the decoders agree with the table", () => {
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
