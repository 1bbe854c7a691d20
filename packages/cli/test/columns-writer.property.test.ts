// Writer-made traces through both streamed paths: the column fold behind `cg-trace summary` and
// `validate` (summarizeColumns) gives the event path's (summarizeStream) figures, verdict, events
// and errors for any trace the writer makes: nested spans, ops, tensors, alloc/free runs with
// repeated and unpaired tensors, gradients and device samples, values past 2^53 and strings the
// canonical byte reader leaves to the text tiers (escapes, non-ASCII).
import { rmSync } from "node:fs";
import { join } from "node:path";
import {
  type MemoryCategory,
  ProfileRun,
  type StreamSummaryOptions,
  summarizeColumns,
  summarizeStream,
  type TraceEvent,
  TraceSession,
} from "@cg/trace";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scratchDirForFile } from "./test-files.js";

const directory = scratchDirForFile("cg-columns-writer-");

const text = fc.constantFrom(
  "x",
  "s1",
  "matmul",
  "na\u00efve",
  'q"uote',
  "tab\there",
  "\u{1F600}",
  "layer/0",
);
const u64 = fc.oneof(
  fc.nat({ max: 5000 }),
  fc.constantFrom(0, 2 ** 53 - 1),
  fc.constantFrom(2n ** 53n + 1n, 2n ** 64n - 1n),
);
const category = fc.constantFrom<MemoryCategory>("activation", "gradient", "optimizer", "other", "parameter");

type Action =
  | { type: "span"; name: string; step: "forward" | "backward" | "optimizer" | undefined; body: Action[] }
  | { type: "op"; name: string; shape: (number | bigint)[]; duration: number | bigint; inputs: string[] }
  | { type: "tensor"; id: string; shape: number[]; category: MemoryCategory }
  | { type: "alloc" | "free"; id: string; bytes: number | bigint; device: string; category: MemoryCategory }
  | {
      type: "gradient";
      key: string;
      state: "present" | "missing" | "zero" | "non_finite";
      norm: number | undefined;
    }
  | { type: "device"; used: number | bigint; free: number | bigint };

const leaf: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    type: fc.constant("op" as const),
    name: text,
    shape: fc.array(u64, { maxLength: 3 }),
    duration: u64,
    inputs: fc.array(text, { maxLength: 3 }),
  }),
  fc.record({
    type: fc.constant("tensor" as const),
    id: text,
    shape: fc.array(fc.nat(64), { maxLength: 3 }),
    category,
  }),
  fc.record({
    type: fc.constantFrom("alloc" as const, "free" as const),
    id: fc.constantFrom("t0", "t1", "t2", "t\u00e9"),
    bytes: u64,
    device: fc.constantFrom("cpu", "cuda:0"),
    category,
  }),
  fc.record({
    type: fc.constant("gradient" as const),
    key: text,
    state: fc.constantFrom("present" as const, "missing" as const, "zero" as const, "non_finite" as const),
    norm: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
  }),
  fc.record({ type: fc.constant("device" as const), used: u64, free: u64 }),
);

const actions: fc.Arbitrary<Action[]> = fc.letrec<{ list: Action[]; action: Action }>((tie) => ({
  list: fc.array(tie("action"), { maxLength: 8 }),
  action: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({
      type: fc.constant("span" as const),
      name: text,
      step: fc.constantFrom(undefined, "forward" as const, "backward" as const, "optimizer" as const),
      body: tie("list") as fc.Arbitrary<Action[]>,
    }),
  ),
})).list;

function play(trace: TraceSession, span: Parameters<TraceSession["recordOp"]>[0], list: Action[]): void {
  for (const action of list) {
    switch (action.type) {
      case "span":
        trace.span(
          action.name,
          (inner) => play(trace, inner, action.body),
          action.step === undefined ? {} : { step: action.step },
        );
        break;
      case "op":
        trace.recordOp(span, {
          opName: action.name,
          inputs: action.inputs,
          shape: action.shape,
          dtype: "f32",
          device: "cpu",
          durationNs: action.duration,
        });
        break;
      case "tensor":
        trace.recordTensor(span, {
          tensorId: action.id,
          shape: action.shape,
          dtype: "f16",
          device: "cpu",
          category: action.category,
        });
        break;
      case "alloc":
      case "free": {
        const record = {
          tensorId: action.id,
          device: action.device,
          bytes: action.bytes,
          dtype: "u8",
          category: action.category,
        };
        if (action.type === "alloc") trace.recordMemoryAlloc(span, record);
        else trace.recordMemoryFree(span, record);
        break;
      }
      case "gradient":
        trace.recordGradient("model", action.key, action.state, action.norm);
        break;
      case "device":
        trace.recordDeviceMemory("cuda:0", action.used, action.free);
        break;
    }
  }
}

async function outcome(
  summarize: (path: string, options: StreamSummaryOptions) => Promise<unknown>,
  path: string,
  options: StreamSummaryOptions,
): Promise<unknown> {
  const events: TraceEvent[] = [];
  try {
    const result = await summarize(path, { ...options, onEvent: (event) => events.push(event) });
    return { result, events };
  } catch (error) {
    return { error: String(error), events };
  }
}

describe("summary and validate on columns, writer-made traces", () => {
  it("give the event path's figures, verdict and events", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        actions,
        fc.constantFrom("train" as const, "infer" as const),
        fc.integer({ min: 1, max: 3 }),
        async (list, phase, reorderWindow) => {
          const path = join(directory, `trace-${runs++}.jsonl`);
          const run =
            phase === "train"
              ? ProfileRun.training("bench::step", 1, "cpu")
              : ProfileRun.inference("bench::step", 1, "cpu");
          const trace = TraceSession.open(path, run);
          {
            using measured = trace.beginMeasurement("measured/update-1");
            play(trace, measured, list);
          }
          trace.finish();
          for (const options of [
            { reorderWindow },
            { reorderWindow, rankLimit: 3 },
          ] as StreamSummaryOptions[]) {
            const expected = await outcome(summarizeStream, path, options);
            expect(
              await outcome(
                (file, given) => summarizeColumns(file, { ...given, batchSize: 5 }),
                path,
                options,
              ),
            ).toEqual(expected);
            expect(await outcome(summarizeColumns, path, options)).toEqual(expected);
          }
          rmSync(path);
        },
      ),
      { numRuns: 150 },
    );
  });
});
