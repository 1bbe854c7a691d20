// The writer's serializers (a byte path into the file sink's buffer for plain ASCII
// lines, a string path for everything else) against the wire layout table: every line a session
// writes, to a real file or to memory, is byte for byte the canonical encoding that @cg/schema
// derives from EVENT_LAYOUTS for the event it decodes to. A key moved, added or spelled
// differently in the table and not in the writer (or the other way round) fails here.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeTraceLine, EVENT_LAYOUTS, encodeTraceEvent, type MemoryCategory } from "@cg/schema";
import { ProfileRun, type SpanHandle, TraceSession } from "@cg/writer";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";

const work = mkdtempSync(join(tmpdir(), "cg-writer-layout-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const CATEGORIES = EVENT_LAYOUTS.memory.fields.find((field) => field.key === "category")
  ?.variants as readonly MemoryCategory[];

/** ASCII strings (the byte path) and any strings (the string path). */
const asciiText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 8,
});
const anyText = fc.oneof(
  { weight: 3, arbitrary: asciiText },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 6 }) },
);
const u64 = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 1_000_000 }) },
  { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }) },
);
const shape = fc.array(fc.nat({ max: 64 }), { maxLength: 4 });
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

const action = fc.oneof(
  fc.record({
    t: fc.constant("op" as const),
    opName: anyText,
    inputs: optional(fc.array(anyText, { maxLength: 3 })),
    output: optional(anyText),
    shape: optional(shape),
    dtype: fc.constantFrom("f32", "bf16", "u8", "x"),
    device: anyText,
    durationNs: u64,
    timestampNs: optional(u64),
    storageBytes: optional(u64),
    inputStorageBytes: optional(u64),
  }),
  fc.record({
    t: fc.constant("tensor" as const),
    tensorId: anyText,
    shape: optional(shape),
    dtype: fc.constantFrom("f32", "i64"),
    device: anyText,
    requiresGrad: optional(fc.boolean()),
    storageBytes: optional(u64),
    category: optional(fc.constantFrom(...CATEGORIES)),
  }),
  fc.record({
    t: fc.constantFrom("alloc" as const, "free" as const),
    tensorId: anyText,
    device: anyText,
    bytes: u64,
    dtype: fc.constantFrom("f32", "u8"),
    category: optional(fc.constantFrom(...CATEGORIES)),
    timestampNs: optional(u64),
    opName: optional(anyText),
    shape: optional(shape),
  }),
  fc.record({
    t: fc.constant("device" as const),
    device: anyText,
    used: u64,
    free: u64,
    timestampNs: optional(u64),
  }),
  fc.record({
    t: fc.constant("gradient" as const),
    root: anyText,
    key: anyText,
    state: fc.constantFrom("present" as const, "missing" as const, "zero" as const, "non_finite" as const),
    norm: optional(fc.double()),
  }),
  fc.record({
    t: fc.constant("span" as const),
    name: anyText,
    step: optional(fc.constantFrom("forward" as const, "backward" as const)),
  }),
);

type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;

function play(session: TraceSession, actions: readonly Action[]): void {
  const measured = session.beginMeasurement("m");
  const open: SpanHandle[] = [];
  for (const item of actions) {
    const span = open.at(-1) ?? measured;
    switch (item.t) {
      case "op": {
        const { t: _t, ...record } = item;
        session.recordOp(span, record);
        break;
      }
      case "tensor": {
        const { t: _t, ...record } = item;
        session.recordTensor(span, record);
        break;
      }
      case "alloc":
      case "free": {
        const { t, ...record } = item;
        if (t === "alloc") session.recordMemoryAlloc(span, record);
        else session.recordMemoryFree(span, record);
        break;
      }
      case "device":
        session.recordDeviceMemory(item.device, item.used, item.free, item.timestampNs);
        break;
      case "gradient":
        session.recordGradient(item.root, item.key, item.state, item.norm);
        break;
      case "span":
        open.push(
          item.step === undefined
            ? session.beginSpan(item.name)
            : session.beginStepSpan(item.name, item.step),
        );
        break;
    }
  }
  while (open.length > 0) open.pop()?.end();
  measured.end();
  session.finish();
}

function expectCanonical(text: string): void {
  const lines = text.slice(0, -1).split("\n");
  for (const line of lines) {
    const result = decodeTraceLine(line);
    expect(result.ok, line).toBe(true);
    if (!result.ok) continue;
    // A non-finite norm is written as `"norm":null` (spec §6.2), which reads back as absent.
    const event =
      result.event.kind === "gradient" && (JSON.parse(line) as { norm?: unknown }).norm === null
        ? { ...result.event, norm: Number.NaN }
        : result.event;
    expect(encodeTraceEvent(event)).toBe(line);
  }
}

describe("the writer's lines follow EVENT_LAYOUTS", () => {
  const run = ProfileRun.training("train::update", 2, "cuda:0").tag("b", "2").tag("a", "1");

  it("to a file (byte and string serializers), for random call sequences", () => {
    let index = 0;
    fc.assert(
      fc.property(fc.array(action, { maxLength: 30 }), (actions) => {
        const path = join(work, `trace-${index++}.jsonl`);
        play(TraceSession.open(path, run), actions);
        expectCanonical(readFileSync(path, "utf8"));
      }),
      { numRuns: 150 },
    );
  });

  it("to memory (string serializers), for random call sequences", () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 30 }), (actions) => {
        const session = TraceSession.inMemory(run);
        play(session, actions);
        expectCanonical(session.sink.text());
      }),
      { numRuns: 150 },
    );
  });

  it("writes every kind the writer can produce", () => {
    const path = join(work, "every-kind.jsonl");
    const session = TraceSession.open(path, run);
    const measured = session.beginMeasurement("m");
    session.recordOp(measured, { opName: "mm", dtype: "f32", device: "cpu", durationNs: 1, storageBytes: 4 });
    session.recordTensor(measured, { tensorId: "t", dtype: "f32", device: "cpu", storageBytes: 4 });
    session.recordMemoryAlloc(measured, {
      tensorId: "t",
      device: "cpu",
      bytes: 4,
      dtype: "f32",
      opName: "mm",
    });
    session.recordDeviceMemory("cpu", 1, 2, undefined, 3);
    session.recordGradient("vb", "w", "present", 0.5);
    measured.end();
    session.finish();
    const text = readFileSync(path, "utf8");
    const kinds = new Set(
      text
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { kind: string }).kind),
    );
    expect([...kinds].sort()).toEqual([
      "device_memory",
      "gradient",
      "memory",
      "meta",
      "op",
      "span_end",
      "span_start",
      "tensor",
    ]);
    expectCanonical(text);
  });
});
