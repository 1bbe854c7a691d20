// The byte fast path must write exactly the schema encoders' bytes whenever it writes at all, bail
// out (-1) on everything it does not cover, and never store a byte before its start offset.
import { resolveStorageBytes } from "@cg/memory";
import {
  EXECUTION_STEPS,
  encodeJsonString,
  encodeOpEvent,
  encodeSpanEndEvent,
  encodeSpanStartEvent,
  MEMORY_CATEGORIES,
  SPAN_KINDS,
  type U64,
  U64_MAX,
} from "@cg/schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MemoryRecord, OpRecord, TensorRecord } from "../record-inputs.js";
import { putDigits } from "./byte-values.js";
import { FIXED_RESERVE, type LineTarget, lineTarget } from "./line-target.js";
import * as recordLines from "./record-lines.js";
import { NO_PIECES, SPAN_END, SPAN_START } from "./span-line-writers.js";
import { SpanPiecesCache } from "./span-pieces.js";

const spanPieces = new SpanPiecesCache(SPAN_START.plan);

// Strings of every kind: plain ASCII labels (the fast path), escapes, control characters, DEL,
// non-ASCII, lone surrogates, and arbitrary UTF-16.
const asciiLabel = fc.stringMatching(/^[ !#-[\]-~]{0,12}$/);
const text = fc.oneof(
  asciiLabel,
  fc.constantFrom("f32", "bf16", "cuda:0", "", 'a"b', "a\\b", "tab\there", "nl\n", "\u007f", "é", "\u2028"),
  fc.constantFrom("x\ud800y", "\udc00", "😀", "\u0000"),
  fc.string(),
  fc.string({ unit: "binary" }),
);
const u64 = fc.oneof(
  fc.nat(),
  fc.maxSafeNat(),
  fc.bigInt({ min: 0n, max: U64_MAX }),
  fc.constantFrom<U64>(0, 1e9, 1e9 - 1, 1e9 + 1, Number.MAX_SAFE_INTEGER, U64_MAX, 9007199254740993n),
);
const badU64 = fc.constantFrom<unknown>(-1, 1.5, Number.NaN, Infinity, -1n, U64_MAX + 1n, "5", null, -0);
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const shape = fc.array(fc.oneof(fc.nat({ max: 4096 }), u64), { maxLength: 4 });

const opRecord = (strings: fc.Arbitrary<string>) =>
  fc.record({
    opName: strings,
    inputs: maybe(fc.array(strings, { maxLength: 3 })),
    output: maybe(strings),
    shape: maybe(shape),
    dtype: strings,
    device: strings,
    durationNs: u64,
    timestampNs: maybe(u64),
    storageBytes: maybe(u64),
    inputStorageBytes: maybe(u64),
  });

function expectedOp(spanId: string, record: OpRecord, now: number): string {
  return `${encodeOpEvent({
    kind: "op",
    span_id: spanId,
    op_name: record.opName,
    inputs: [...(record.inputs ?? [])],
    shape: [...(record.shape ?? [])],
    dtype: record.dtype,
    device: record.device,
    duration_ns: record.durationNs,
    timestamp_ns: record.timestampNs ?? now,
    storage_bytes: resolveStorageBytes(record.storageBytes, record.shape ?? [], record.dtype),
    input_storage_bytes: record.inputStorageBytes ?? 0,
    ...(record.output === undefined ? {} : { output: record.output }),
  })}\n`;
}

const FILL = 0xaa;

function freshBuffer(size = 8192): Buffer {
  return Buffer.alloc(size, FILL);
}

const targets = new WeakMap<Buffer, LineTarget>();

/** The write target over `bytes` (one per buffer, as a sink keeps it). */
function on(bytes: Buffer): LineTarget {
  let target = targets.get(bytes);
  if (target === undefined) {
    target = lineTarget(bytes);
    targets.set(bytes, target);
  }
  return target;
}

/** The clock reading every property below hands the serializers. */
const CLOCK_NS = 2_000_000_007;

/**
 * For random inputs at a random offset, `put` either bails out (-1) or writes exactly the string
 * serializer's line (`line`), never touching the bytes before the offset; it reads the clock only
 * for a line it writes that takes the clock's time (`readsClock`). Returns how many it wrote.
 */
function expectBytesOrBailOut<Input>(
  inputs: fc.Arbitrary<Input>,
  put: (target: LineTarget, start: number, input: Input, now: () => number) => number,
  line: (input: Input, now: () => number) => string,
  readsClock: (input: Input) => boolean,
  numRuns: number,
): number {
  let written = 0;
  fc.assert(
    fc.property(inputs, fc.nat({ max: 4096 }), (input, start) => {
      const bytes = freshBuffer();
      let readings = 0;
      const now = () => {
        readings++;
        return CLOCK_NS;
      };
      const end = put(on(bytes), start, input, now);
      expect(bytes.subarray(0, start).every((byte) => byte === FILL)).toBe(true);
      if (end < 0) {
        expect(readings).toBe(0);
        return;
      }
      written++;
      expect(readings).toBe(readsClock(input) ? 1 : 0);
      expect(bytes.toString("utf8", start, end)).toBe(line(input, () => CLOCK_NS));
    }),
    { numRuns },
  );
  return written;
}

/**
 * Printable-ASCII records always take the byte path, and `put` writes from offset 0 exactly the
 * line `line` builds for them.
 */
function expectAsciiFastPath<Record>(
  records: fc.Arbitrary<Record>,
  put: (target: LineTarget, spanId: string, record: Record) => number,
  line: (spanId: string, record: Record) => string,
): void {
  fc.assert(
    fc.property(asciiLabel, records, (spanId, record) => {
      const bytes = freshBuffer();
      const end = put(on(bytes), spanId, record);
      expect(end).toBeGreaterThan(0);
      expect(bytes.toString("latin1", 0, end)).toBe(line(spanId, record));
    }),
  );
}

describe("putOpLine", () => {
  it("writes the schema encoder's bytes or bails out, for any strings and u64 values", () => {
    expectBytesOrBailOut(
      fc.tuple(text, opRecord(text)),
      (target, start, [spanId, record], now) =>
        recordLines.putOpLine(target, start, spanId, record, false, now),
      ([spanId, record], now) => {
        const line = recordLines.opLine(encodeJsonString(spanId), record, now);
        expect(line).toBe(expectedOp(spanId, record, CLOCK_NS));
        return line;
      },
      ([, record]) => record.timestampNs === undefined,
      2000,
    );
  });

  it("takes the fast path for printable-ASCII records", () => {
    expectAsciiFastPath(
      opRecord(asciiLabel),
      (target, spanId, record) => recordLines.putOpLine(target, 0, spanId, record, false, () => 7),
      (spanId, record) => expectedOp(spanId, record, 7),
    );
  });

  it("bails out on values needing escapes, non-ASCII, lone surrogates and invalid values", () => {
    const valid: OpRecord = { opName: "matmul", shape: [2, 3], dtype: "f32", device: "cpu", durationNs: 5 };
    const bytes = freshBuffer();
    // Any value: the byte path sees what a JavaScript caller may pass, whatever its type.
    const put = (record: unknown, spanId = "s2") =>
      recordLines.putOpLine(on(bytes), 0, spanId, record as OpRecord, false, () => 1);
    expect(put(valid)).toBeGreaterThan(0);
    for (const bad of ['a"b', "a\\b", "\n", "\u0000", "é", "\u2028", "x\ud800", "😀", 5, undefined, null]) {
      for (const field of ["opName", "dtype", "device", "output"] as const) {
        if (field === "output" && bad === undefined) continue;
        expect(put({ ...valid, [field]: bad })).toBe(-1);
      }
      expect(put({ ...valid, inputs: ["x", bad] })).toBe(-1);
      if (typeof bad === "string") expect(put(valid, bad)).toBe(-1);
    }
    fc.assert(
      fc.property(
        badU64,
        fc.constantFrom("durationNs", "timestampNs", "storageBytes", "inputStorageBytes"),
        (bad, field) => {
          if (Object.is(bad, -0)) return; // -0 is a valid 0 for the string path as well
          expect(put({ ...valid, [field]: bad })).toBe(-1);
          expect(put({ ...valid, shape: [1, bad] })).toBe(-1);
        },
      ),
    );
    for (const record of [null, undefined, 5, "op"]) expect(put(record)).toBe(-1);
    expect(put({ ...valid, shape: "2x3" })).toBe(-1);
    expect(put({ ...valid, inputs: "x" })).toBe(-1);
    // A clock reading that is not a safe non-negative integer goes to the string path.
    for (const reading of [1.5, -1, Number.NaN]) {
      expect(recordLines.putOpLine(on(bytes), 0, "s2", valid, false, () => reading)).toBe(-1);
    }
  });

  it("treats timestamp 0 as now only in reference mode", () => {
    const record: OpRecord = { opName: "add", dtype: "f32", device: "cpu", durationNs: 1, timestampNs: 0 };
    const bytes = freshBuffer();
    const kept = recordLines.putOpLine(on(bytes), 0, "s2", record, false, () => 99);
    expect(bytes.toString("latin1", 0, kept)).toContain('"timestamp_ns":0,');
    const now = recordLines.putOpLine(on(bytes), 0, "s2", record, true, () => 99);
    expect(bytes.toString("latin1", 0, now)).toContain('"timestamp_ns":99,');
  });

  it("bails out instead of running past the buffer", () => {
    const long = "x".repeat(300);
    const record: OpRecord = {
      opName: long,
      inputs: [long, long],
      dtype: "f32",
      device: "cpu",
      durationNs: 1,
    };
    const size = 2000;
    const bytes = freshBuffer(size);
    const length = expectedOp("s2", record, 1).length;
    let fitted = 0;
    for (let start = 0; start < size; start += 7) {
      const end = recordLines.putOpLine(on(bytes), start, "s2", record, false, () => 1);
      if (end >= 0) {
        fitted++;
        expect(end).toBeLessThanOrEqual(size);
        expect(bytes.toString("latin1", start, end)).toBe(expectedOp("s2", record, 1));
      } else {
        expect(start + length).toBeGreaterThan(size - FIXED_RESERVE);
      }
    }
    expect(fitted).toBeGreaterThan(0);
    expect(recordLines.putOpLine(on(freshBuffer(100)), 0, "s2", record, false, () => 1)).toBe(-1);
  });
});

describe("the span_start / span_end byte writers", () => {
  it("write the schema encoder's bytes or bail out", () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.oneof(fc.constant(0), fc.nat()),
        text,
        fc.oneof(fc.maxSafeNat(), fc.constantFrom(0, 1e9, 1.5, -1)),
        fc.constantFrom(...SPAN_KINDS),
        fc.boolean(),
        maybe(fc.constantFrom(...EXECUTION_STEPS)),
        fc.nat({ max: 4096 }),
        (id, parent, name, start, kind, measured, step, offset) => {
          const bytes = freshBuffer();
          const pieces = spanPieces.get(name, kind, measured, step);
          const end = SPAN_START.bytes(on(bytes), offset, id, parent, start, pieces);
          expect(bytes.subarray(0, offset).every((byte) => byte === FILL)).toBe(true);
          if (end >= 0) {
            const event = {
              kind: "span_start" as const,
              id: `s${id}`,
              // Parent 0: no parent (the root).
              ...(parent === 0 ? {} : { parent_id: `s${parent}` }),
              name,
              start_ns: start,
              span_kind: kind,
              measured,
              ...(step === undefined ? {} : { step }),
            };
            expect(bytes.toString("utf8", offset, end)).toBe(`${encodeSpanStartEvent(event)}\n`);
          } else {
            expect(
              /^[\x20-\x7e]*$/.test(encodeJsonString(name)) && Number.isSafeInteger(start) && start >= 0,
            ).toBe(false);
          }
          const endEnd = SPAN_END.bytes(on(bytes), offset, id, 0, start, NO_PIECES);
          if (Number.isSafeInteger(start) && start >= 0) {
            expect(bytes.toString("latin1", offset, endEnd)).toBe(
              `${encodeSpanEndEvent({ kind: "span_end", id: `s${id}`, duration_ns: start })}\n`,
            );
          } else {
            expect(endEnd).toBe(-1);
          }
        },
      ),
    );
  });

  it("escaped names with only ASCII escapes still take the fast path", () => {
    const bytes = freshBuffer();
    const pieces = spanPieces.get('say "hi"\n\u0001', "module", true, "forward");
    const end = SPAN_START.bytes(on(bytes), 0, 2, 1, 5, pieces);
    expect(bytes.toString("latin1", 0, end)).toBe(
      `${encodeSpanStartEvent({ kind: "span_start", id: "s2", parent_id: "s1", name: 'say "hi"\n\u0001', start_ns: 5, span_kind: "module", measured: true, step: "forward" })}\n`,
    );
  });
});

const category = maybe(fc.constantFrom(...MEMORY_CATEGORIES));

const tensorRecord = (strings: fc.Arbitrary<string>) =>
  fc.record({
    tensorId: strings,
    shape: maybe(shape),
    dtype: strings,
    device: strings,
    requiresGrad: maybe(fc.boolean()),
    storageBytes: maybe(u64),
    category,
  });

const memoryRecord = (strings: fc.Arbitrary<string>) =>
  fc.record({
    tensorId: strings,
    device: strings,
    bytes: u64,
    dtype: strings,
    category,
    timestampNs: maybe(u64),
    opName: maybe(strings),
    shape: maybe(shape),
  });

describe("putTensorLine", () => {
  it("writes tensorLine's bytes or bails out, for any strings and u64 values", () => {
    const written = expectBytesOrBailOut(
      fc.tuple(text, tensorRecord(text)),
      (target, start, [spanId, record]) => recordLines.putTensorLine(target, start, spanId, record),
      ([spanId, record]) => recordLines.tensorLine(encodeJsonString(spanId), record),
      () => false,
      2000,
    );
    expect(written).toBeGreaterThan(30);
  });

  it("takes the fast path for printable-ASCII records and bails out on invalid values", () => {
    expectAsciiFastPath(
      tensorRecord(asciiLabel),
      (target, spanId, record) => recordLines.putTensorLine(target, 0, spanId, record),
      (spanId, record) => recordLines.tensorLine(encodeJsonString(spanId), record),
    );
    const valid: TensorRecord = { tensorId: "t1", shape: [2, 3], dtype: "f32", device: "cpu" };
    const bytes = freshBuffer();
    expect(recordLines.putTensorLine(on(bytes), 0, "s2", valid)).toBeGreaterThan(0);
    const bad: Partial<Record<keyof TensorRecord, unknown>>[] = [
      { tensorId: 'a"b' },
      { dtype: "é" },
      { device: 5 },
      { requiresGrad: "yes" },
      { requiresGrad: 1 },
      { category: "Activation" },
      { category: null },
      { storageBytes: -1 },
      { storageBytes: 1.5 },
      { shape: [1, -2] },
      { shape: "2x3" },
    ];
    for (const change of bad) {
      expect(
        recordLines.putTensorLine(on(bytes), 0, "s2", { ...valid, ...change } as TensorRecord),
        JSON.stringify(change),
      ).toBe(-1);
    }
    expect(recordLines.putTensorLine(on(bytes), 0, "s2", null as unknown as TensorRecord)).toBe(-1);
  });
});

describe("putMemoryLine", () => {
  it("writes memoryLine's bytes or bails out, reading the clock only for a line it writes", () => {
    const written = expectBytesOrBailOut(
      fc.tuple(text, memoryRecord(text), fc.constantFrom<"alloc" | "free">("alloc", "free")),
      (target, start, [spanId, record, action], now) =>
        recordLines.putMemoryLine(target, start, spanId, record, action, now),
      ([spanId, record, action], now) =>
        recordLines.memoryLine(encodeJsonString(spanId), record, action, now),
      ([, record]) => record.timestampNs === undefined,
      3000,
    );
    expect(written).toBeGreaterThan(30);
  });

  it("takes the fast path for printable-ASCII records", () => {
    expectAsciiFastPath(
      memoryRecord(asciiLabel),
      (target, spanId, record) => recordLines.putMemoryLine(target, 0, spanId, record, "free", () => 5),
      (spanId, record) => recordLines.memoryLine(encodeJsonString(spanId), record, "free", () => 5),
    );
  });

  it("writes timestamps of every width, up to the largest u64", () => {
    const bytes = freshBuffer();
    const record: MemoryRecord = { tensorId: "t1", device: "cpu", bytes: 64, dtype: "f32", opName: "add" };
    for (const timestampNs of [0, 7, 1e9, Number.MAX_SAFE_INTEGER, 9007199254740993n, U64_MAX]) {
      const end = recordLines.putMemoryLine(
        on(bytes),
        10,
        "s2",
        { ...record, timestampNs },
        "alloc",
        () => 1,
      );
      expect(bytes.toString("latin1", 10, end)).toBe(
        recordLines.memoryLine('"s2"', { ...record, timestampNs }, "alloc", () => 1),
      );
    }
  });

  it("bails out on invalid values and clock readings, and before running past the buffer", () => {
    const valid: MemoryRecord = { tensorId: "t1", device: "cpu", bytes: 64, dtype: "f32" };
    const bytes = freshBuffer();
    expect(recordLines.putMemoryLine(on(bytes), 0, "s2", valid, "free", () => 1)).toBeGreaterThan(0);
    const bad: Partial<Record<keyof MemoryRecord, unknown>>[] = [
      { tensorId: "\n" },
      { opName: "😀" },
      { device: null },
      { bytes: -1 },
      { bytes: "64" },
      { timestampNs: 1.5 },
      { category: "weights" },
      { shape: [1.5] },
    ];
    for (const change of bad) {
      const record = { ...valid, ...change } as MemoryRecord;
      expect(
        recordLines.putMemoryLine(on(bytes), 0, "s2", record, "alloc", () => 1),
        JSON.stringify(change),
      ).toBe(-1);
    }
    for (const reading of [1.5, -1, Number.NaN]) {
      expect(recordLines.putMemoryLine(on(bytes), 0, "s2", valid, "alloc", () => reading)).toBe(-1);
    }
    const long = { ...valid, tensorId: "x".repeat(300), opName: "y".repeat(300) };
    const size = 2000;
    const small = freshBuffer(size);
    const expected = recordLines.memoryLine('"s2"', long, "alloc", () => 1);
    let fitted = 0;
    for (let start = 0; start < size; start += 7) {
      const end = recordLines.putMemoryLine(on(small), start, "s2", long, "alloc", () => 1);
      if (end >= 0) {
        fitted++;
        expect(end).toBeLessThanOrEqual(size);
        expect(small.toString("latin1", start, end)).toBe(expected);
      } else {
        expect(start + expected.length).toBeGreaterThan(size - FIXED_RESERVE);
      }
    }
    expect(fitted).toBeGreaterThan(0);
  });
});

describe("putDeviceMemoryLine", () => {
  it("writes deviceMemoryLine's bytes or bails out, reading the clock only for a line it writes", () => {
    const anyU64 = fc.oneof(u64, badU64);
    const written = expectBytesOrBailOut(
      fc.tuple(text, anyU64, anyU64, maybe(anyU64), maybe(anyU64)),
      (target, start, [device, used, free, timestamp, reserved], now) =>
        recordLines.putDeviceMemoryLine(target, start, device, used, free, timestamp, reserved, now),
      ([device, used, free, timestamp, reserved], now) =>
        recordLines.deviceMemoryLine(device, used, free, timestamp, reserved, now),
      ([, , , timestamp]) => timestamp === undefined,
      3000,
    );
    expect(written).toBeGreaterThan(60);
  });

  it("bails out on a clock reading that is not a u64 and before running past the buffer", () => {
    const bytes = freshBuffer();
    for (const reading of [1.5, -1, Number.NaN]) {
      expect(
        recordLines.putDeviceMemoryLine(on(bytes), 0, "cuda:0", 1, 2, undefined, undefined, () => reading),
      ).toBe(-1);
    }
    const small = freshBuffer(FIXED_RESERVE + 100);
    expect(recordLines.putDeviceMemoryLine(on(small), 101, "cuda:0", 1, 2, 3, 4, () => 5)).toBe(-1);
    const end = recordLines.putDeviceMemoryLine(on(small), 0, "cuda:0", 1, 2, 3, 4, () => 5);
    expect(small.toString("latin1", 0, end)).toBe(
      recordLines.deviceMemoryLine("cuda:0", 1, 2, 3, 4, () => 5),
    );
  });
});

describe("putDigits", () => {
  it("equals String(n) for safe non-negative integers", () => {
    const bytes = freshBuffer(64);
    const check = (value: number) => {
      const end = putDigits(bytes, 3, value);
      expect(bytes.toString("latin1", 3, end)).toBe(String(value));
    };
    for (let power = 1; power <= 1e15; power *= 10) {
      check(power - 1);
      check(power);
      check(power + 1);
    }
    check(Number.MAX_SAFE_INTEGER);
    check(2 ** 31);
    check(2 ** 32 + 7);
    fc.assert(fc.property(fc.maxSafeNat(), (value) => check(value)));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9007199 }), fc.integer({ min: -3, max: 3 }), (high, delta) =>
        check(high * 1e9 + delta),
      ),
    );
  });
});
