// The record lines' serializers (line-plans.ts) and the span lines' writers (span-line-plan.ts) are
// derived from @cg/schema's EVENT_LAYOUTS. This holds all of them to the table: every key the
// table requires or defaults is written, nothing else, in the table's canonical order, by the
// string and the byte serializer alike; and a MODIFIED table (a field added, fields reordered) is
// followed by the derived serializers, generated and closure fallback alike.
import { EVENT_LAYOUTS, type EventLayout, encodeWithLayout } from "@cg/schema";
import type { SourceCompiler } from "@cg/schema/codegen";
import { describe, expect, it } from "vitest";
import { byteLine } from "./byte-lines.js";
import { LINE_PLANS, planWithLayout } from "./line-plans.js";
import { lineTarget } from "./line-target.js";
import * as recordLines from "./record-lines.js";
import { SPAN_SOURCES } from "./span-line-plan.js";
import { NO_PIECES, SPAN_END, SPAN_START, spanLineWriters } from "./span-line-writers.js";
import { SpanPiecesCache, spanPieces } from "./span-pieces.js";
import { textLine } from "./text-lines.js";

const now = () => 77;
const decoder = new TextDecoder();

/** The line a byte serializer writes into a fresh buffer. */
function bytesOf(write: (target: ReturnType<typeof lineTarget>) => number): string {
  const target = lineTarget(new Uint8Array(4096));
  const end = write(target);
  if (end < 0) throw new Error("the byte serializer declined a plain line");
  return decoder.decode(target.bytes.subarray(0, end));
}

const op = {
  opName: "matmul",
  inputs: ["a"],
  output: "y",
  shape: [2, 3],
  dtype: "f32",
  device: "cpu",
  durationNs: 5,
  timestampNs: 9,
  storageBytes: 24,
  inputStorageBytes: 8,
};
const tensor = {
  tensorId: "y",
  shape: [2],
  dtype: "f32",
  device: "cpu",
  requiresGrad: true,
  storageBytes: 8,
};
const memory = {
  tensorId: "y",
  opName: "matmul",
  device: "cpu",
  bytes: 8,
  dtype: "f32",
  shape: [2],
  category: "activation" as const,
  timestampNs: 3,
};

const layerPieces = new SpanPiecesCache(SPAN_START.plan).get("layer", "function", true, "forward");

/** Each kind's lines with every field the writer can write, from both serializers. */
const lines: Record<string, { string: string; bytes: string }> = {
  span_start: {
    string: SPAN_START.text(2, 1, 4, layerPieces),
    bytes: bytesOf((target) => SPAN_START.bytes(target, 0, 2, 1, 4, layerPieces)),
  },
  span_end: {
    string: SPAN_END.text(2, 0, 6, NO_PIECES),
    bytes: bytesOf((target) => SPAN_END.bytes(target, 0, 2, 0, 6, NO_PIECES)),
  },
  op: {
    string: recordLines.opLine('"s2"', op, now),
    bytes: bytesOf((target) => recordLines.putOpLine(target, 0, "s2", op, false, now)),
  },
  tensor: {
    string: recordLines.tensorLine('"s2"', tensor),
    bytes: bytesOf((target) => recordLines.putTensorLine(target, 0, "s2", tensor)),
  },
  memory: {
    string: recordLines.memoryLine('"s2"', memory, "alloc", now),
    bytes: bytesOf((target) => recordLines.putMemoryLine(target, 0, "s2", memory, "alloc", now)),
  },
  device_memory: {
    string: recordLines.deviceMemoryLine("cpu", 1, 2, 3, 4, now),
    bytes: bytesOf((target) => recordLines.putDeviceMemoryLine(target, 0, "cpu", 1, 2, 3, 4, now)),
  },
};

describe("writer serializers follow EVENT_LAYOUTS", () => {
  for (const [kind, written] of Object.entries(lines)) {
    const layout = EVENT_LAYOUTS[kind as keyof typeof EVENT_LAYOUTS];
    it(`${kind}: every key of the table, in its order, from both serializers`, () => {
      const expected = ["kind", ...layout.fields.map((field) => field.key)];
      expect(written.bytes).toBe(written.string);
      const event = JSON.parse(written.string) as Record<string, unknown>;
      expect(event.kind).toBe(kind);
      expect(Object.keys(event)).toEqual(expected);
    });
  }

  it("covers every kind the session writes on the byte path", () => {
    expect(Object.keys(lines).every((kind) => kind in EVENT_LAYOUTS)).toBe(true);
  });
});

/** What a page whose Content Security Policy forbids code generation does to `new Function`. */
const forbidden: SourceCompiler = () => {
  throw new EvalError("Code generation from strings disallowed for this context");
};

describe("the closures that stand in where code generation is forbidden", () => {
  const samples = [
    ["op", LINE_PLANS.op, op, undefined],
    ["tensor", LINE_PLANS.tensor, tensor, undefined],
    ["memory", LINE_PLANS.memory, memory, "free"],
    ["device_memory", LINE_PLANS.device_memory, { device: "cpu", usedBytes: 1, freeBytes: 2 }, undefined],
  ] as const;
  it.each(samples)(
    "%s: the same line and the same errors as the generated serializer",
    (_kind, plan, record, action) => {
      const generated = textLine(plan);
      const closures = textLine(plan, forbidden);
      const values = record as unknown as Record<string, unknown>;
      expect(closures(values, '"s2"', action, now)).toBe(generated(values, '"s2"', action, now));
      for (const key of Object.keys(values)) {
        const bad = { ...values, [key]: Symbol.for("bad") };
        expect(() => closures(bad, '"s2"', action, now)).toThrow(
          (() => {
            try {
              generated(bad, '"s2"', action, now);
            } catch (error) {
              return (error as Error).message;
            }
            return "no error";
          })(),
        );
      }
    },
  );
});

describe("a modified table is followed by the derived serializers", () => {
  const fields = EVENT_LAYOUTS.op.fields;
  const at = (key: string) => fields.find((field) => field.key === key) as EventLayout["fields"][number];
  /** `op` gains `queue_ns` (optional u64) after `inputs`, and `device` moves before `shape`. */
  const modified: EventLayout = {
    kind: "op",
    fields: [
      at("span_id"),
      at("op_name"),
      at("inputs"),
      { key: "queue_ns", type: "u64", presence: "optional", null: "absent" },
      at("output"),
      at("device"),
      at("shape"),
      at("dtype"),
      at("duration_ns"),
      at("timestamp_ns"),
      at("storage_bytes"),
      at("input_storage_bytes"),
    ],
  };
  const plan = planWithLayout(LINE_PLANS.op, modified);
  const text = textLine(plan);
  const bytes = byteLine(plan);
  const record = { ...op, queueNs: 12 };
  const event = {
    kind: "op",
    span_id: "s2",
    op_name: "matmul",
    inputs: ["a"],
    queue_ns: 12,
    output: "y",
    device: "cpu",
    shape: [2, 3],
    dtype: "f32",
    duration_ns: 5,
    timestamp_ns: 9,
    storage_bytes: 24,
    input_storage_bytes: 8,
  };

  it("string serializer", () => {
    expect(text(record, '"s2"', undefined, now)).toBe(`${encodeWithLayout(modified, event)}\n`);
    const { queue_ns: _queue, ...withoutQueue } = event;
    expect(text(op, '"s2"', undefined, now)).toBe(`${encodeWithLayout(modified, withoutQueue)}\n`);
    expect(() => text({ ...op, queueNs: "12" }, '"s2"', undefined, now)).toThrow(/queueNs/);
    // The real table's serializer leaves the unknown property out.
    expect(recordLines.opLine('"s2"', record, now)).toBe(recordLines.opLine('"s2"', op, now));
  });

  it("byte serializer", () => {
    expect(bytesOf((target) => bytes(target, 0, "s2", record, undefined, false, now))).toBe(
      `${encodeWithLayout(modified, event)}\n`,
    );
    const declined = bytes(
      lineTarget(new Uint8Array(4096)),
      0,
      "s2",
      { ...op, queueNs: "12" },
      undefined,
      false,
      now,
    );
    expect(declined).toBe(-1);
  });

  it("where code generation is forbidden the byte serializer declines, and closures write the string", () => {
    const target = lineTarget(new Uint8Array(4096));
    expect(byteLine(plan, forbidden)(target, 0, "s2", record, undefined, false, now)).toBe(-1);
    // The string serializer falls back to closures over the same plan: same lines, same errors.
    const closures = textLine(plan, forbidden);
    expect(closures(record, '"s2"', undefined, now)).toBe(text(record, '"s2"', undefined, now));
    expect(closures(op, '"s2"', undefined, now)).toBe(text(op, '"s2"', undefined, now));
    expect(() => closures({ ...op, queueNs: "12" }, '"s2"', undefined, now)).toThrow(/queueNs/);
  });
});

describe("a modified span table is followed by the span writers", () => {
  const field = (kind: "span_start" | "span_end", key: string) =>
    EVENT_LAYOUTS[kind].fields.find((item) => item.key === key) as EventLayout["fields"][number];
  const start = (key: string) => field("span_start", key);
  /**
   * `span_start` with `name` moved behind `span_kind`, a defaulted `depth` (the writer has no value:
   * it writes the default) and an optional `thread` (no value: left out) added.
   */
  const startLayout: EventLayout = {
    kind: "span_start",
    fields: [
      start("id"),
      { key: "depth", type: "u64", presence: "defaulted", default: 0, null: "rejected" },
      start("parent_id"),
      start("start_ns"),
      start("span_kind"),
      start("name"),
      { key: "thread", type: "string", presence: "optional", null: "absent" },
      start("measured"),
      start("step"),
    ],
  };
  /** `parent_id` first and `start_ns` before `id`: no id before the optional key to share a quote with. */
  const parentFirst: EventLayout = {
    kind: "span_start",
    fields: [
      start("parent_id"),
      start("start_ns"),
      start("id"),
      start("name"),
      start("span_kind"),
      start("measured"),
      start("step"),
    ],
  };
  /** `span_end` with `duration_ns` first. */
  const endLayout: EventLayout = {
    kind: "span_end",
    fields: [field("span_end", "duration_ns"), field("span_end", "id")],
  };
  const cases = [
    { parent: 1, step: "forward" as const, name: "layer" },
    { parent: 0, step: undefined, name: "root" },
    { parent: 7, step: undefined, name: 'say "hi"\n' },
    { parent: 3, step: "backward" as const, name: "é non-ASCII" },
  ];

  for (const [title, layout] of [
    ["name moved, keys added", startLayout],
    ["parent_id first", parentFirst],
  ] as const) {
    it(`span_start (${title}): byte, string and closure writers write the schema encoder's line`, () => {
      const writers = spanLineWriters(layout, SPAN_SOURCES.span_start);
      const closures = spanLineWriters(layout, SPAN_SOURCES.span_start, forbidden);
      for (const { parent, step, name } of cases) {
        const pieces = spanPieces(writers.plan, { name, kind: "module", measured: true, step });
        const event = {
          kind: "span_start",
          id: "s12",
          ...(parent === 0 ? {} : { parent_id: `s${parent}` }),
          name,
          start_ns: 1_234_567_890_123,
          span_kind: "module",
          measured: true,
          ...(step === undefined ? {} : { step }),
        };
        const expected = `${encodeWithLayout(layout, event)}\n`;
        expect(writers.text(12, parent, 1_234_567_890_123, pieces)).toBe(expected);
        expect(closures.text(12, parent, 1_234_567_890_123, pieces)).toBe(expected);
        const target = lineTarget(new Uint8Array(4096));
        const end = writers.bytes(target, 0, 12, parent, 1_234_567_890_123, pieces);
        // Non-ASCII text takes the string path.
        if (/^[\x00-\x7f]*$/.test(name)) expect(decoder.decode(target.bytes.subarray(0, end))).toBe(expected);
        else expect(end).toBe(-1);
        expect(closures.bytes(target, 0, 12, parent, 1_234_567_890_123, pieces)).toBe(-1);
      }
      // The real table's writers are untouched.
      const realPieces = spanPieces(SPAN_START.plan, { name: "layer", kind: "module", measured: true });
      expect(Object.keys(JSON.parse(SPAN_START.text(12, 1, 5, realPieces)))).toEqual([
        "kind",
        ...EVENT_LAYOUTS.span_start.fields.map((item) => item.key).filter((key) => key !== "step"),
      ]);
    });
  }

  it("span_end: byte, string and closure writers write the schema encoder's line", () => {
    const writers = spanLineWriters(endLayout, SPAN_SOURCES.span_end);
    const closures = spanLineWriters(endLayout, SPAN_SOURCES.span_end, forbidden);
    const expected = `${encodeWithLayout(endLayout, { kind: "span_end", id: "s12", duration_ns: 345 })}\n`;
    expect(expected.startsWith('{"kind":"span_end","duration_ns":345,')).toBe(true);
    expect(writers.text(12, 0, 345, NO_PIECES)).toBe(expected);
    expect(closures.text(12, 0, 345, NO_PIECES)).toBe(expected);
    expect(bytesOf((target) => writers.bytes(target, 0, 12, 0, 345, NO_PIECES))).toBe(expected);
    expect(closures.bytes(lineTarget(new Uint8Array(4096)), 0, 12, 0, 345, NO_PIECES)).toBe(-1);
  });

  it("a description value is checked against the modified table's variants, naming the argument", () => {
    const narrowed: EventLayout = {
      kind: "span_start",
      fields: EVENT_LAYOUTS.span_start.fields.map((item) =>
        item.key === "span_kind" ? { ...item, variants: ["function"] } : item,
      ),
    };
    const plan = spanLineWriters(narrowed, SPAN_SOURCES.span_start).plan;
    expect(() => spanPieces(plan, { name: "layer", kind: "module", measured: false })).toThrow(
      /kind must be/,
    );
  });

  it("a key the writer has no value for must not be required, and ids keep their types", () => {
    const required: EventLayout = {
      kind: "span_end",
      fields: [
        ...endLayout.fields,
        { key: "thread", type: "string", presence: "required", null: "rejected" },
      ],
    };
    expect(() => spanLineWriters(required, SPAN_SOURCES.span_end)).toThrow(
      /no value for the required key thread/,
    );
    const retyped: EventLayout = {
      kind: "span_end",
      fields: [{ ...field("span_end", "id"), type: "u64" }, field("span_end", "duration_ns")],
    };
    expect(() => spanLineWriters(retyped, SPAN_SOURCES.span_end)).toThrow(/as u64 \(id\)/);
  });
});
