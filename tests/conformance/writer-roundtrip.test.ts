// Writer → parser round trip (spec §7, §9, §13, §15, §6.2, §7.3): random API call sequences through
// @cg/writer's in-memory sink must parse back, with @cg/parser, into exactly what was recorded.
import { analyzeHealth, parseTraceText } from "@cg/parser";
import {
  EVENT_LAYOUTS,
  type ExecutionStep,
  type GradientState,
  type MemoryCategory,
  type SpanKind,
} from "@cg/schema";
import { ProfileRun, type SpanHandle, TraceSession } from "@cg/writer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byCodePoint, canonicalFloat, denseBytes, rawObjectKeys } from "./oracle.ts";

const KINDS: SpanKind[] = ["function", "op", "module"];
const STEPS: ExecutionStep[] = ["forward", "backward", "optimizer"];
const STATES: GradientState[] = ["present", "missing", "zero", "non_finite"];
const CATEGORIES: MemoryCategory[] = ["parameter", "activation", "gradient", "optimizer", "other"];
const DTYPES = [
  "f32",
  "F32",
  " bf16 ",
  "\tI64\n",
  "\u0085u8\u3000",
  "\ufefff32",
  "Ｆ32",
  "f8e4m3",
  "",
  "bool",
  "f8",
  "float32",
];
const U64_MAX = (1n << 64n) - 1n;

const text = fc.string({ unit: "binary", maxLength: 6 });
const u64 = fc.oneof(
  fc.nat({ max: 10_000 }),
  fc.bigInt({ min: 0n, max: U64_MAX }),
  fc.constantFrom(0, 2 ** 53 - 1, 2n ** 53n + 1n, U64_MAX),
);
const dim = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 64 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 4294967296n, 4294967297n, U64_MAX) },
);
const shape = fc.array(dim, { maxLength: 4 });
const norm = fc.oneof(
  fc.double(),
  fc.constantFrom(
    0,
    -0,
    1,
    3,
    0.42,
    1e-5,
    1e-6,
    1e-7,
    2.5e-8,
    5e-324,
    1e15,
    1e16,
    1.5e300,
    123456.789,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    -1e21,
    1e21,
    2 ** 53 + 2,
  ),
);

const action = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("begin" as const),
      name: text,
      kind: fc.constantFrom(...KINDS),
      step: fc.option(fc.constantFrom(...STEPS), { nil: undefined }),
      measured: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("end" as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("op" as const),
      span: fc.nat(),
      opName: text,
      inputs: fc.option(fc.array(text, { maxLength: 3 }), { nil: undefined }),
      output: fc.option(text, { nil: undefined }),
      shape: fc.option(shape, { nil: undefined }),
      dtype: fc.constantFrom(...DTYPES),
      device: text,
      durationNs: u64,
      timestampNs: fc.option(
        fc.oneof(fc.integer({ min: 1, max: 10 ** 9 }), fc.bigInt({ min: 1n, max: U64_MAX })),
        { nil: undefined },
      ),
      storageBytes: fc.option(u64, { nil: undefined }),
      inputStorageBytes: fc.option(u64, { nil: undefined }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("tensor" as const),
      span: fc.nat(),
      tensorId: text,
      shape: fc.option(shape, { nil: undefined }),
      dtype: fc.constantFrom(...DTYPES),
      device: text,
      requiresGrad: fc.option(fc.boolean(), { nil: undefined }),
      storageBytes: fc.option(u64, { nil: undefined }),
      category: fc.option(fc.constantFrom(...CATEGORIES), { nil: undefined }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constantFrom("alloc" as const, "free" as const),
      span: fc.nat(),
      tensorId: text,
      device: text,
      bytes: u64,
      dtype: fc.constantFrom(...DTYPES),
      category: fc.option(fc.constantFrom(...CATEGORIES), { nil: undefined }),
      timestampNs: fc.option(u64, { nil: undefined }),
      opName: fc.option(text, { nil: undefined }),
      shape: fc.option(shape, { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("device" as const),
      device: text,
      used: u64,
      free: u64,
      timestampNs: fc.option(u64, { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("grad" as const),
      root: text,
      key: text,
      state: fc.constantFrom(...STATES),
      norm: fc.option(norm, { nil: undefined }),
    }),
  },
);

const tagKeys = fc.uniqueArray(
  fc.oneof(
    fc.constantFrom(
      "10",
      "9",
      "😀",
      "～",
      "\uffff",
      "𐀀",
      "a",
      "A",
      "",
      "0",
      "01",
      "1",
      "__proto__",
      "constructor",
      "toString",
      "é",
    ),
    text,
  ),
  { maxLength: 8 },
);

function big(value: number | bigint | undefined): bigint | undefined {
  return value === undefined ? undefined : BigInt(value);
}

/** §7.2 canonical key order per event kind (after `kind`), from the wire layout table. */
const KEY_ORDER: Record<string, string[]> = Object.fromEntries(
  Object.values(EVENT_LAYOUTS).map((layout) => [layout.kind, layout.fields.map((field) => field.key)]),
);

describe("writer → parser round trip", () => {
  it("random call sequences parse back to what was recorded", () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 40 }), tagKeys, text, (actions, keys, tagValue) => {
        let run = ProfileRun.training("train::update", 3, "cuda:0");
        const tags = new Map<string, string>();
        keys.forEach((key, i) => {
          run = run.tag(key, `${tagValue}${i}`);
          tags.set(key, `${tagValue}${i}`);
        });
        let tick = 0;
        const session = TraceSession.inMemory(run, {
          clock: { now: () => (tick += 3) },
          runId: "run-1-2",
          timestamp: "2025-01-01T00:00:00.000Z",
        });
        const stack: SpanHandle[] = [];
        const spans: {
          id: string;
          parent: string;
          name: string;
          kind: SpanKind;
          measured: boolean;
          step?: ExecutionStep;
        }[] = [];
        const ids = [session.rootSpanId];
        const ops: Extract<(typeof actions)[number], { t: "op" }>[] = [];
        const opSpans: string[] = [];
        const tensors: Extract<(typeof actions)[number], { t: "tensor" }>[] = [];
        const tensorSpans: string[] = [];
        const memory: Extract<(typeof actions)[number], { t: "alloc" | "free" }>[] = [];
        const memorySpans: string[] = [];
        const devices: Extract<(typeof actions)[number], { t: "device" }>[] = [];
        const grads: Extract<(typeof actions)[number], { t: "grad" }>[] = [];
        for (const a of actions) {
          switch (a.t) {
            case "begin": {
              const parent = stack.at(-1)?.id ?? session.rootSpanId;
              const handle = a.measured
                ? session.beginMeasurement(a.name)
                : a.step !== undefined
                  ? session.beginStepSpan(a.name, a.step, a.kind)
                  : session.beginSpan(a.name, a.kind);
              stack.push(handle);
              ids.push(handle.id);
              spans.push({
                id: handle.id,
                parent,
                name: a.name,
                kind: a.measured ? "function" : a.kind,
                measured: a.measured,
                ...(!a.measured && a.step !== undefined ? { step: a.step } : {}),
              });
              break;
            }
            case "end":
              stack.pop()?.end();
              break;
            case "op": {
              const span = ids[a.span % ids.length] ?? "s1";
              const { t: _t, span: _s, ...record } = a;
              session.recordOp(span, record);
              ops.push(a);
              opSpans.push(span);
              break;
            }
            case "tensor": {
              const span = ids[a.span % ids.length] ?? "s1";
              const { t: _t, span: _s, ...record } = a;
              session.recordTensor(span, record);
              tensors.push(a);
              tensorSpans.push(span);
              break;
            }
            case "alloc":
            case "free": {
              const span = ids[a.span % ids.length] ?? "s1";
              const { t, span: _s, ...record } = a;
              if (t === "alloc") session.recordMemoryAlloc(span, record);
              else session.recordMemoryFree(span, record);
              memory.push(a);
              memorySpans.push(span);
              break;
            }
            case "device":
              session.recordDeviceMemory(a.device, a.used, a.free, a.timestampNs);
              devices.push(a);
              break;
            case "grad":
              session.recordGradient(a.root, a.key, a.state, a.norm);
              grads.push(a);
              break;
          }
        }
        while (stack.length > 0) stack.pop()?.end();
        session.finish();
        const output = session.sink.text();

        // §4.3 framing
        expect(output.endsWith("\n")).toBe(true);
        expect(output).not.toContain("\r\n");
        expect(output.charCodeAt(0)).not.toBe(0xfeff);
        const lines = output.slice(0, -1).split("\n");
        expect(lines.every((line) => line.length > 0)).toBe(true);
        // §7.2 key order of every line
        for (const line of lines) {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          const kind = parsed.kind as string;
          const keysInLine = Object.keys(parsed);
          expect(keysInLine[0]).toBe("kind");
          const order = KEY_ORDER[kind] ?? [];
          expect(keysInLine.slice(1)).toEqual(order.filter((key) => key in parsed));
          expect(Object.values(parsed).includes(null) && kind !== "gradient").toBe(false);
        }
        // §7.3 tags in code point order
        expect(rawObjectKeys(lines[0] ?? "", "tags")).toEqual([...tags.keys()].sort(byCodePoint));
        // §4.4 line order of a session
        expect(lines[1]?.startsWith('{"kind":"span_start","id":"s1"')).toBe(true);
        expect(lines.at(-1)?.startsWith('{"kind":"span_end","id":"s1",')).toBe(true);

        const doc = parseTraceText(output);
        expect(Object.entries(doc.run.tags).sort(([a], [b]) => byCodePoint(a, b))).toEqual(
          [...tags.entries()].sort(([a], [b]) => byCodePoint(a, b)),
        );
        expect(doc.run.capture_step).toBe(3);
        expect(doc.run.warmup_steps).toBe(2);
        expect(doc.run.correlation_id).toBe("train::update/update-3");
        // spans: ids s1..sN in creation order, parents = stack top, all closed
        expect(doc.spans.map((s) => s.id)).toEqual(ids.slice().sort(byCodePoint));
        expect(ids).toEqual(ids.map((_, i) => `s${i + 1}`));
        const byId = new Map(doc.spans.map((s) => [s.id, s]));
        const root = byId.get("s1");
        expect(root).toMatchObject({
          name: "train::update",
          kind: "function",
          measured: false,
          start_ns: 0,
          closed: true,
        });
        expect(root).not.toHaveProperty("parent_id");
        for (const span of spans) {
          const record = byId.get(span.id);
          expect(record).toMatchObject({
            parent_id: span.parent,
            name: span.name,
            kind: span.kind,
            measured: span.measured,
            closed: true,
          });
          expect(record?.step).toBe(span.step);
        }
        // ops
        expect(doc.ops).toHaveLength(ops.length);
        doc.ops.forEach((op, i) => {
          const a = ops[i];
          if (a === undefined) throw new Error("missing op");
          expect(op.span_id).toBe(opSpans[i]);
          expect(op.op_name).toBe(a.opName);
          expect(op.inputs).toEqual(a.inputs ?? []);
          expect(op.output).toBe(a.output);
          expect(op.shape.map(big)).toEqual((a.shape ?? []).map(big));
          expect(op.dtype).toBe(a.dtype);
          expect(op.device).toBe(a.device);
          expect(big(op.duration_ns)).toBe(big(a.durationNs));
          if (a.timestampNs !== undefined) expect(big(op.timestamp_ns)).toBe(big(a.timestampNs));
          else expect(big(op.timestamp_ns)).toBeGreaterThan(0n);
          expect(big(op.storage_bytes)).toBe(
            a.storageBytes === undefined ? denseBytes(a.shape ?? [], a.dtype) : big(a.storageBytes),
          );
          expect(big(op.input_storage_bytes)).toBe(big(a.inputStorageBytes) ?? 0n);
        });
        // tensors
        expect(doc.tensors).toHaveLength(tensors.length);
        doc.tensors.forEach((tensor, i) => {
          const a = tensors[i];
          if (a === undefined) throw new Error("missing tensor");
          expect(tensor.span_id).toBe(tensorSpans[i]);
          expect(tensor.tensor_id).toBe(a.tensorId);
          expect(tensor.requires_grad).toBe(a.requiresGrad ?? false);
          expect(tensor.category).toBe(a.category ?? "other");
          expect(big(tensor.storage_bytes)).toBe(
            a.storageBytes === undefined ? denseBytes(a.shape ?? [], a.dtype) : big(a.storageBytes),
          );
        });
        // memory: bytes as given, never resolved
        expect(doc.memory).toHaveLength(memory.length);
        doc.memory.forEach((event, i) => {
          const a = memory[i];
          if (a === undefined) throw new Error("missing memory");
          expect(event).toMatchObject({
            action: a.t,
            tensor_id: a.tensorId,
            span_id: memorySpans[i],
            device: a.device,
            dtype: a.dtype,
            category: a.category ?? "other",
          });
          expect(big(event.bytes)).toBe(big(a.bytes));
          expect(event.op_name).toBe(a.opName);
          expect(event.shape.map(big)).toEqual((a.shape ?? []).map(big));
          if (a.timestampNs !== undefined) expect(big(event.timestamp_ns)).toBe(big(a.timestampNs));
        });
        expect(doc.device_memory).toHaveLength(devices.length);
        doc.device_memory.forEach((event, i) => {
          const a = devices[i];
          expect(big(event.used_bytes)).toBe(big(a?.used));
          expect(big(event.free_bytes)).toBe(big(a?.free));
          expect(event).not.toHaveProperty("reserved_bytes");
          if (a?.timestampNs !== undefined) expect(big(event.timestamp_ns)).toBe(big(a.timestampNs));
        });
        // gradients: ids, canonical norms (§6.2) on the wire, values back
        const gradientLines = lines.filter((line) => line.startsWith('{"kind":"gradient"'));
        expect(doc.gradients).toHaveLength(grads.length);
        doc.gradients.forEach((gradient, i) => {
          const a = grads[i];
          if (a === undefined) throw new Error("missing gradient");
          expect(gradient).toMatchObject({
            event_id: `gradient-${i + 1}`,
            root: a.root,
            key: a.key,
            state: a.state,
          });
          if (a.norm !== undefined && Number.isFinite(a.norm)) {
            expect(Object.is(gradient.norm, a.norm)).toBe(true);
            const wire = /"norm":([^,}]*)\}$/.exec(gradientLines[i] ?? "")?.[1];
            const expected = canonicalFloat(a.norm);
            expect([expected, expected.replace("e+", "e")]).toContain(wire);
          } else {
            expect(gradient).not.toHaveProperty("norm");
          }
        });
      }),
      { numRuns: 150 },
    );
  });

  it("the recommended capture shape (§13.6) is trusted by analyzeHealth with no errors", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...STEPS), { minLength: 0, maxLength: 2 }),
        fc.nat({ max: 3 }),
        (extraSteps, records) => {
          let tick = 0;
          const session = TraceSession.inMemory(
            ProfileRun.training("m::step", 1, "cpu").tag("10", "a").tag("9", "b"),
            { clock: { now: () => (tick += 11) } },
          );
          const measured = session.beginMeasurement("m/update-1");
          for (const step of [...STEPS, ...extraSteps]) {
            const span = session.beginStepSpan(step, step);
            for (let i = 0; i < records; i++) {
              session.recordOp(span, {
                opName: "matmul",
                shape: [2, 2],
                dtype: "f32",
                device: "cpu",
                durationNs: 1,
              });
              session.recordTensor(span, { tensorId: `t${i}`, dtype: "f32", device: "cpu" });
              session.recordMemoryAlloc(span, {
                tensorId: `m${step}${i}`,
                device: "cpu",
                bytes: 16,
                dtype: "f32",
              });
              session.recordMemoryFree(span, {
                tensorId: `m${step}${i}`,
                device: "cpu",
                bytes: 16,
                dtype: "f32",
              });
            }
            const inner = session.beginSpan("inner", "op");
            inner.end();
            span.end();
          }
          session.recordGradient("vb", "w", "present", 0.5);
          session.recordDeviceMemory("cpu", 1, 2);
          measured.end();
          session.finish();
          const health = analyzeHealth(parseTraceText(session.sink.text()));
          expect(health.issues.filter((issue) => issue.severity === "error")).toEqual([]);
          expect(health.trusted).toBe(true);
          expect(health.coverage).toMatchObject({ root_spans: 1, measured_spans: 1 });
          if (records > 0) expect(health.issues).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a capture that never opens a measured region is untrusted (§12.3: measurement_count, found 0)", () => {
    const session = TraceSession.inMemory(ProfileRun.training("m", 1, "cpu"));
    session.finish();
    const health = analyzeHealth(parseTraceText(session.sink.text()));
    expect(health.trusted).toBe(false);
    expect(health.issues.filter((i) => i.severity === "error").map((i) => [i.code, i.message])).toEqual([
      ["measurement_count", "expected exactly one measured region, found 0"],
    ]);
  });

  it("out-of-order ends still produce a valid trace/6 file (§17 Q2 improvement stays on the wire)", () => {
    const session = TraceSession.inMemory(ProfileRun.training("m", 1, "cpu"));
    const a = session.beginMeasurement("a");
    const b = session.beginSpan("b");
    a.end();
    b.end();
    session.finish();
    const doc = parseTraceText(session.sink.text());
    expect(doc.spans.map((s) => [s.id, s.closed])).toEqual([
      ["s1", true],
      ["s2", true],
      ["s3", true],
    ]);
  });
});
