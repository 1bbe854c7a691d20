// Random valid API call sequences: every written line decodes with the schema's strict decoder, the
// file follows the reference ordering rules, and parents follow the open spans.
import { EXECUTION_STEPS, GRADIENT_STATES, MEMORY_CATEGORIES, SPAN_KINDS, U64_MAX } from "@cg/schema";
import { ProfileRun, type SpanHandle, TraceSession } from "@cg/writer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkTrace, eventsOfKind } from "./support.js";

type Command =
  | { type: "begin"; name: string; kind: (typeof SPAN_KINDS)[number] }
  | { type: "measure"; name: string }
  | { type: "step"; name: string; step: (typeof EXECUTION_STEPS)[number] }
  | { type: "end"; pick: number }
  | { type: "spanSync"; name: string }
  | { type: "op"; shape: (number | bigint)[]; dtype: string; duration: number | bigint; timestamp?: number }
  | { type: "tensor"; id: string; requiresGrad: boolean; category: (typeof MEMORY_CATEGORIES)[number] }
  | { type: "memory"; alloc: boolean; bytes: number | bigint }
  | { type: "device"; used: number | bigint; free: number; reserved?: number }
  | { type: "gradient"; state: (typeof GRADIENT_STATES)[number]; norm?: number };

const name = fc.string({ maxLength: 12 });
const u64 = fc.oneof(fc.nat(), fc.bigInt({ min: 0n, max: U64_MAX }));
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ type: fc.constant("begin" as const), name, kind: fc.constantFrom(...SPAN_KINDS) }),
  fc.record({ type: fc.constant("measure" as const), name }),
  fc.record({ type: fc.constant("step" as const), name, step: fc.constantFrom(...EXECUTION_STEPS) }),
  fc.record({ type: fc.constant("end" as const), pick: fc.nat() }),
  fc.record({ type: fc.constant("end" as const), pick: fc.nat() }),
  fc.record({ type: fc.constant("spanSync" as const), name }),
  fc.record(
    {
      type: fc.constant("op" as const),
      shape: fc.array(fc.oneof(fc.nat({ max: 64 }), u64), { maxLength: 3 }),
      dtype: fc.constantFrom("f32", "bf16", "u8", "f8e4m3"),
      duration: u64,
      timestamp: fc.nat(),
    },
    { requiredKeys: ["type", "shape", "dtype", "duration"] },
  ),
  fc.record({
    type: fc.constant("tensor" as const),
    id: name,
    requiresGrad: fc.boolean(),
    category: fc.constantFrom(...MEMORY_CATEGORIES),
  }),
  fc.record({ type: fc.constant("memory" as const), alloc: fc.boolean(), bytes: u64 }),
  fc.record(
    { type: fc.constant("device" as const), used: u64, free: fc.nat(), reserved: fc.nat() },
    { requiredKeys: ["type", "used", "free"] },
  ),
  fc.record(
    {
      type: fc.constant("gradient" as const),
      state: fc.constantFrom(...GRADIENT_STATES),
      norm: fc.oneof(fc.double(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 1e300, 5e-324)),
    },
    { requiredKeys: ["type", "state"] },
  ),
);

describe("random API sequences", () => {
  it("always produce valid trace/6 with correct parents", () => {
    fc.assert(
      fc.property(
        fc.array(command, { maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        (commands, finalOrder) => {
          const session = TraceSession.inMemory(ProfileRun.training("prop::update", 1, "cpu"));
          const open: SpanHandle[] = [];
          const expectedParent = new Map<string, string>();
          const current = () => open.at(-1)?.id ?? "s1";
          const begin = (span: SpanHandle, parent: string) => {
            expectedParent.set(span.id, parent);
            open.push(span);
          };
          for (const step of commands) {
            const spanId = current();
            switch (step.type) {
              case "begin":
                begin(session.beginSpan(step.name, step.kind), spanId);
                break;
              case "measure":
                begin(session.beginMeasurement(step.name), spanId);
                break;
              case "step":
                begin(session.beginStepSpan(step.name, step.step), spanId);
                break;
              case "end":
                if (open.length > 0) open.splice(step.pick % open.length, 1)[0]?.end();
                break;
              case "spanSync":
                session.span(step.name, (span) => {
                  expectedParent.set(span.id, spanId);
                  session.recordGradient("vb", span.id, "present", 1);
                });
                break;
              case "op":
                session.recordOp(spanId, {
                  opName: "op",
                  shape: step.shape,
                  dtype: step.dtype,
                  device: "cpu",
                  durationNs: step.duration,
                  timestampNs: step.timestamp,
                });
                break;
              case "tensor":
                session.recordTensor(spanId, {
                  tensorId: step.id,
                  dtype: "f32",
                  device: "cpu",
                  requiresGrad: step.requiresGrad,
                  category: step.category,
                });
                break;
              case "memory": {
                const record = { tensorId: "t", device: "cpu", bytes: step.bytes, dtype: "u8" };
                if (step.alloc) session.recordMemoryAlloc(spanId, record);
                else session.recordMemoryFree(spanId, record);
                break;
              }
              case "device":
                session.recordDeviceMemory("cuda:0", step.used, step.free, undefined, step.reserved);
                break;
              case "gradient":
                session.recordGradient("vb", "w", step.state, step.norm);
                break;
            }
          }
          for (const pick of finalOrder) if (open.length > 0) open.splice(pick % open.length, 1)[0]?.end();
          while (open.length > 0) open.pop()?.end();
          session.finish();

          const { events, starts, ends } = checkTrace(session.sink.text());
          expect(events.at(-1)).toMatchObject({ kind: "span_end", id: "s1" });
          expect([...ends.keys()].sort()).toEqual([...starts.keys()].sort());
          for (const [id, parent] of expectedParent) expect(starts.get(id)?.parent_id).toBe(parent);
          for (const start of starts.values()) {
            if (start.id !== "s1") expect(starts.has(start.parent_id ?? "")).toBe(true);
          }
          expect(eventsOfKind(events, "span_start").map((start) => start.id)).toEqual(
            Array.from({ length: starts.size }, (_, index) => `s${index + 1}`),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
