// The writer's serializers are hand-written for speed; this holds each one to @cg/schema's
// EVENT_LAYOUTS, the single source of the wire layout: every key the table requires or defaults is
// written, nothing else, in the table's canonical order, by the string and the byte serializer
// alike. A field added, renamed or moved in the table fails here until the writer follows.
import { EVENT_LAYOUTS } from "@cg/schema";
import { describe, expect, it } from "vitest";
import { deviceMemoryLine } from "./device-memory-line.js";
import { putDeviceMemoryLine } from "./device-memory-line-bytes.js";
import { lineTarget } from "./line-target.js";
import { memoryLine } from "./memory-line.js";
import { putMemoryLine } from "./memory-line-bytes.js";
import { opLine } from "./op-line.js";
import { putOpLine } from "./op-line-bytes.js";
import { putSpanEndLine, putSpanStartLine } from "./span-line-bytes.js";
import { SpanNameCache, spanStartTail, spanStartTailFragment } from "./span-line-pieces.js";
import { spanEndLine, spanStartLine } from "./span-lines.js";
import { tensorLine } from "./tensor-line.js";
import { putTensorLine } from "./tensor-line-bytes.js";

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
    string: opLine('"s2"', op, now),
    bytes: bytesOf((target) => putOpLine(target, 0, "s2", op, false, now)),
  },
  tensor: {
    string: tensorLine('"s2"', tensor),
    bytes: bytesOf((target) => putTensorLine(target, 0, "s2", tensor)),
  },
  memory: {
    string: memoryLine('"s2"', memory, "alloc", now),
    bytes: bytesOf((target) => putMemoryLine(target, 0, "s2", memory, "alloc", now)),
  },
  device_memory: {
    string: deviceMemoryLine("cpu", 1, 2, 3, 4, now),
    bytes: bytesOf((target) => putDeviceMemoryLine(target, 0, "cpu", 1, 2, 3, 4, now)),
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
