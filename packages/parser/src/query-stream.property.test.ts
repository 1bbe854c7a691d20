// Queries on random traces: spans whose parents start later or never, cycles, ops before their span
// or of no span, zero durations and sizes, ids that sort differently in UTF-16 and code point order,
// memory events slightly out of timestamp order. A document's queries fold its events, in
// re-serialisation order, through the stream's code: the first property holds the results
// independent of that order (file order against document order); the second checks the rankings,
// totals and counts against figures made here from the generated events.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type OperatorGroupField,
  operatorTable,
  parseTraceText,
  queryTrace,
  queryTraceStream,
  RowSource,
} from "./index.js";

const META =
  '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}';
const IDS = ["a", "b", "c", "é", "\u{1F600}", "\uFFFF", "a1", "z"];

const eventArbitrary = fc.oneof(
  fc.record({
    kind: fc.constant("span" as const),
    id: fc.constantFrom(...IDS),
    parent: fc.option(fc.constantFrom(...IDS, "gone"), { nil: undefined }),
    name: fc.constantFrom("fwd", "bwd", "layer"),
    duration: fc.option(fc.constantFrom(0, 5, 40), { nil: undefined }),
    measured: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("op" as const),
    span: fc.constantFrom(...IDS, "gone"),
    name: fc.constantFrom("matmul", "add"),
    duration: fc.constantFrom(0, 1, 3, 9),
    bytes: fc.option(fc.constantFrom(0, 8, 64), { nil: undefined }),
    dtype: fc.constantFrom("f32", "f16"),
  }),
  fc.record({
    kind: fc.constant("memory" as const),
    tensor: fc.constantFrom("t1", "t2", "t3"),
    time: fc.integer({ min: 0, max: 20 }),
    alloc: fc.boolean(),
    bytes: fc.constantFrom(16, 32),
  }),
  fc.record({
    kind: fc.constant("gradient" as const),
    key: fc.constantFrom("w", "b"),
    state: fc.constantFrom("present", "zero", "missing"),
  }),
);

type RandomEvent = typeof eventArbitrary extends fc.Arbitrary<infer T> ? T : never;

function traceText(events: RandomEvent[]): string {
  const lines = [META];
  const started = new Set<string>();
  const ends: string[] = [];
  let gradient = 0;
  for (const event of events) {
    if (event.kind === "span") {
      if (started.has(event.id)) continue; // the reader refuses a repeated id
      started.add(event.id);
      const parent = event.parent === undefined ? "" : `,"parent_id":${JSON.stringify(event.parent)}`;
      lines.push(
        `{"kind":"span_start","id":${JSON.stringify(event.id)}${parent},"name":"${event.name}","start_ns":${lines.length},"span_kind":"function","measured":${event.measured}}`,
      );
      if (event.duration !== undefined) {
        ends.push(`{"kind":"span_end","id":${JSON.stringify(event.id)},"duration_ns":${event.duration}}`);
      }
    } else if (event.kind === "op") {
      const bytes = event.bytes === undefined ? "" : `,"storage_bytes":${event.bytes}`;
      lines.push(
        `{"kind":"op","span_id":${JSON.stringify(event.span)},"op_name":"${event.name}","shape":[2],"dtype":"${event.dtype}","device":"cpu","duration_ns":${event.duration},"timestamp_ns":1${bytes}}`,
      );
    } else if (event.kind === "memory") {
      lines.push(
        `{"kind":"memory","timestamp_ns":${event.time},"tensor_id":"${event.tensor}","span_id":"a","device":"cpu","bytes":${event.bytes},"shape":[4],"dtype":"f32","action":"${event.alloc ? "alloc" : "free"}","category":"activation"}`,
      );
    } else {
      lines.push(
        `{"kind":"gradient","event_id":"g${gradient++}","root":"vb","key":"${event.key}","state":"${event.state}"}`,
      );
    }
  }
  return `${[...lines, ...ends].join("\n")}\n`;
}

async function materialize(result: object): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    out[key] = value instanceof RowSource ? await value.toArray() : value;
  }
  return out;
}

const GROUPINGS: OperatorGroupField[][] = [["path"], ["dtype", "path"], []];

describe("queryTraceStream on random traces", () => {
  it("gives the same results read in file order as folded from the document", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArbitrary, { maxLength: 40 }),
        fc.integer({ min: 1, max: 4 }),
        async (events, limit) => {
          const text = traceText(events);
          const document = await parseTraceText(text);
          const open = () => ({ text });
          for (const kind of ["efficiency", "spans", "memory", "tensors", "gradients", "slowest"] as const) {
            const streamed = await queryTraceStream(open, kind, { limit });
            expect(await materialize(streamed.result)).toStrictEqual(queryTrace(document, kind, { limit }));
          }
          for (const groupBy of GROUPINGS) {
            const streamed = await queryTraceStream(open, "ops", { limit, groupBy });
            expect(streamed.result).toStrictEqual(operatorTable(document, { groupBy, limit }));
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

/** The generated ops as the reader resolves them: an op's bytes default to its shape's ([2]) storage. */
function generatedOps(events: RandomEvent[]): { id: string; duration: number; bytes: number }[] {
  const ordinals = new Map<string, number>();
  const ops: { id: string; duration: number; bytes: number }[] = [];
  for (const event of events) {
    if (event.kind !== "op") continue;
    const ordinal = ordinals.get(event.span) ?? 0;
    ordinals.set(event.span, ordinal + 1);
    const bytes = event.bytes ?? (event.dtype === "f32" ? 8 : 4);
    ops.push({ id: `${event.span}/op/${ordinal}`, duration: event.duration, bytes });
  }
  return ops;
}

/** Descending by key, ties by id: the order of every ranked list. */
function ranked<T extends { id: string }>(items: T[], key: (item: T) => number, limit: number): T[] {
  return [...items]
    .sort((left, right) => key(right) - key(left) || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0))
    .slice(0, limit);
}

describe("queries of random traces against figures made from the generated events", () => {
  it("ranks ops, totals the measured spans and counts gradient facts as the events say", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArbitrary, { maxLength: 40 }),
        fc.integer({ min: 1, max: 4 }),
        async (events, limit) => {
          const document = parseTraceText(traceText(events));
          const ops = generatedOps(events);
          const slowest = queryTrace(document, "slowest", { limit });
          expect(slowest.slowest_ops.map((op) => [op.id, op.self_ns])).toEqual(
            ranked(ops, (op) => op.duration, limit).map((op) => [op.id, op.duration]),
          );
          const started = new Set<string>();
          let measured = 0;
          for (const event of events) {
            if (event.kind !== "span" || started.has(event.id)) continue;
            started.add(event.id);
            if (event.measured) measured += event.duration ?? 0;
          }
          expect(slowest.total_ns).toBe(measured);
          expect(slowest.total_ms).toBe(measured / 1e6);
          const efficient = ops
            .filter((op) => op.duration > 0 && op.bytes > 0)
            .map((op) => ({ ...op, ratio: op.bytes / op.duration }));
          expect(
            queryTrace(document, "efficiency", { limit }).ops.map((op) => [op.id, op.bytes_per_ns]),
          ).toEqual(ranked(efficient, (op) => op.ratio, limit).map((op) => [op.id, op.ratio]));
          const heaviest = queryTrace(document, "heaviest", { limit });
          expect(heaviest.heaviest_ops.map((op) => [op.id, op.storage_bytes])).toEqual(
            ranked(ops, (op) => op.bytes, limit).map((op) => [op.id, op.bytes]),
          );
          const states = { present: 0, missing: 0, zero: 0, non_finite: 0 };
          for (const event of events) if (event.kind === "gradient") states[event.state]++;
          const gradients = queryTrace(document, "gradients");
          expect(gradients.counts).toEqual(states);
          expect(gradients.attention_count).toBe(states.missing + states.zero);
        },
      ),
      { numRuns: 150 },
    );
  });
});
