// A file session encodes op, tensor, memory, device-memory and span lines straight into its byte buffer; a memory
// session always takes the string serializers. Driven by the same calls, both must produce the same text and
// throw the same errors, and every line must decode.
import { readFileSync } from "node:fs";
import { U64_MAX } from "@cg/schema";
import {
  type MemoryRecord,
  type OpRecord,
  ProfileRun,
  type SpanHandle,
  type TensorRecord,
  TraceSession,
} from "@cg/writer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkTrace, tempDirForFile } from "./support.js";

const run = ProfileRun.training("train::update", 1, "cuda:0");
const inDir = tempDirForFile("cg-writer-fast-");

const label = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("matmul", "f32", "bf16", "cuda:0", "t0", "t1", "layer") },
  {
    weight: 1,
    arbitrary: fc.constantFrom('q"x', "a\\b", "line\n", "é", "\u2028", "x\ud800y", "😀", "\u007f"),
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 6 }) },
);
const u64 = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 1 << 20 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(Number.MAX_SAFE_INTEGER, U64_MAX, 2n ** 60n, 1e12 + 3) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(-1, 2.5, Number.NaN, U64_MAX + 1n, "7", null) },
);
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 3 });

const opRecord = fc.record({
  opName: label,
  inputs: maybe(fc.array(label, { maxLength: 3 })),
  output: maybe(label),
  shape: maybe(fc.array(u64, { maxLength: 3 })),
  dtype: label,
  device: label,
  durationNs: u64,
  timestampNs: maybe(u64),
  storageBytes: maybe(u64),
  inputStorageBytes: maybe(u64),
});

const category = fc.constantFrom<unknown>(undefined, "activation", "gradient", "other", "weights");

const tensorRecord = fc.record({
  tensorId: label,
  shape: maybe(fc.array(u64, { maxLength: 3 })),
  dtype: label,
  device: label,
  requiresGrad: fc.constantFrom<unknown>(undefined, true, false, 1),
  storageBytes: maybe(u64),
  category,
});

const memoryRecord = fc.record({
  tensorId: label,
  device: label,
  bytes: u64,
  dtype: label,
  category,
  timestampNs: maybe(u64),
  opName: maybe(label),
  shape: maybe(fc.array(u64, { maxLength: 3 })),
});

const command = fc.oneof(
  { weight: 4, arbitrary: opRecord.map((record) => ({ kind: "op" as const, record })) },
  { weight: 2, arbitrary: tensorRecord.map((record) => ({ kind: "tensor" as const, record })) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constantFrom("alloc" as const, "free" as const),
      record: memoryRecord,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("begin" as const),
      name: label,
      spanKind: fc.constantFrom<unknown>("function", "module", "bogus"),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "end" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("device" as const),
      device: label,
      used: u64,
      free: u64,
      timestamp: maybe(u64),
      reserved: maybe(u64),
    }),
  },
);

type Command = typeof command extends fc.Arbitrary<infer T> ? T : never;

/** Replays the commands on a session; returns the error message (or "ok") of each call. */
function replay(session: TraceSession, commands: Command[]): string[] {
  const open: SpanHandle[] = [];
  const results = commands.map((entry) => {
    try {
      const span = open.at(-1) ?? "s1";
      if (entry.kind === "op") session.recordOp(span, entry.record as OpRecord);
      else if (entry.kind === "tensor") session.recordTensor(span, entry.record as TensorRecord);
      else if (entry.kind === "alloc") session.recordMemoryAlloc(span, entry.record as MemoryRecord);
      else if (entry.kind === "free") session.recordMemoryFree(span, entry.record as MemoryRecord);
      else if (entry.kind === "device") {
        const { device, used, free, timestamp, reserved } = entry;
        session.recordDeviceMemory(
          device,
          used as number,
          free as number,
          timestamp as number,
          reserved as number,
        );
      } else if (entry.kind === "begin")
        open.push(session.beginSpan(entry.name, entry.spanKind as "function"));
      else open.pop()?.end();
      return "ok";
    } catch (error) {
      return (error as Error).message;
    }
  });
  while (open.length > 0) open.pop()?.end();
  return results;
}

function counterClock() {
  let reading = 1_000_000_000 - 50; // crosses 1e9 (the two-halves digit path) during the run
  return { now: () => (reading += 7) };
}

describe("byte fast path", () => {
  it("writes what the string serializers write, and throws the same errors", () => {
    let index = 0;
    fc.assert(
      fc.property(
        fc.array(command, { maxLength: 40 }),
        fc.constantFrom(512, 1024, 4096, 65536),
        (commands, size) => {
          const options = { runId: "run-1", timestamp: "2026-01-01T00:00:00.000Z" };
          const path = inDir(`trace-${index++}.jsonl`);
          const file = TraceSession.open(path, run, { ...options, clock: counterClock(), bufferSize: size });
          const memory = TraceSession.inMemory(run, { ...options, clock: counterClock() });
          expect(replay(file, commands)).toEqual(replay(memory, commands));
          file.finish();
          memory.finish();
          const text = readFileSync(path, "utf8");
          expect(text).toBe(memory.sink.text());
          checkTrace(text);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("crosses buffer boundaries without splitting or losing lines", () => {
    const path = inDir("many.jsonl");
    const options = { runId: "run-2", timestamp: "2026-01-01T00:00:00.000Z", clock: { now: () => 5 } };
    const file = TraceSession.open(path, run, { ...options, bufferSize: 2048 });
    const memory = TraceSession.inMemory(run, options);
    for (const target of [file, memory]) {
      for (let index = 0; index < 3000; index++) {
        using span = target.beginSpan(`layer-${index % 7}`, "module");
        target.recordOp(span, {
          opName: index % 2 === 0 ? "matmul" : "add",
          inputs: [`t${index}`, `t${index + 1}`],
          output: `t${index + 2}`,
          shape: [index, 64],
          dtype: "f32",
          device: "cuda:0",
          durationNs: index * 1_000_003,
        });
        const tensor = { tensorId: `t${index + 2}`, shape: [index, 64], dtype: "f32", device: "cuda:0" };
        target.recordTensor(span, { ...tensor, category: "activation" });
        target.recordMemoryAlloc(span, { ...tensor, bytes: index * 256, opName: "matmul" });
      }
    }
    file.finish();
    memory.finish();
    const text = readFileSync(path, "utf8");
    expect(text).toBe(memory.sink.text());
    expect(checkTrace(text).events).toHaveLength(2 + 5 * 3000 + 1);
  });
});
