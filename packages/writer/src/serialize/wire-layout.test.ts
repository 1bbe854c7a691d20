// The record lines' serializers are derived from @cg/schema's EVENT_LAYOUTS (line-plans.ts); the
// span lines are built from cached pieces. This holds all of them to the table: every key the
// table requires or defaults is written, nothing else, in the table's canonical order, by the
// string and the byte serializer alike; and a MODIFIED table (a field added, fields reordered) is
// followed by both derived serializers.
import { EVENT_LAYOUTS, type EventLayout, encodeWithLayout, type SourceCompiler } from "@cg/schema";
import { describe, expect, it } from "vitest";
import { byteLine } from "./byte-lines.js";
import { LINE_PLANS, planWithLayout } from "./line-plans.js";
import { lineTarget } from "./line-target.js";
import * as recordLines from "./record-lines.js";
import { putSpanEndLine, putSpanStartLine } from "./span-line-bytes.js";
import { SpanNameCache, spanStartTail, spanStartTailFragment } from "./span-line-pieces.js";
import { spanEndLine, spanStartLine } from "./span-lines.js";
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

/** Each kind's lines with every field the writer can write, from both serializers. */
const lines: Record<string, { string: string; bytes: string }> = {
  span_start: {
    string: spanStartLine("s2", "s1", '"layer"', 4, spanStartTail('"function"', true, '"forward"')),
    bytes: bytesOf((target) =>
      putSpanStartLine(
        target,
        0,
        2,
        1,
        new SpanNameCache().get("layer"),
        4,
        spanStartTailFragment("function", true, "forward"),
      ),
    ),
  },
  span_end: { string: spanEndLine("s2", 6), bytes: bytesOf((target) => putSpanEndLine(target, 0, 2, 6)) },
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
