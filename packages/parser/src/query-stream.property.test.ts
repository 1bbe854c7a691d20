// The streamed queries against the document on random traces: spans whose parents start later or
// never, cycles, ops before their span or of no span, zero durations and sizes, ids that sort
// differently in UTF-16 and code point order, memory events slightly out of timestamp order.
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
  it("equals queryTrace and operatorTable on the document", async () => {
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
