// The compact span table on random span sets (missing and late parents, cycles, open spans,
// overlapping children, values past 2^53, non-ASCII ids). A document's health, summary, costs and
// rankings fold its events, in re-serialisation order, through the same table: the property holds
// them independent of that order (file order against document order), and checks the counts, the
// measured total and every span's own op figures against what the generated spans and ops say.
import { compareCodePoints } from "@cg/schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BitSet, IdTable } from "./id-table.js";
import {
  analyzeHealth,
  type HealthCoverage,
  parseTraceText,
  queryTrace,
  type SpanCost,
  SpanCostCollector,
  spanCosts,
  summarize,
  summarizeColumns,
  summarizeStream,
  type TraceSummary,
} from "./index.js";

const META =
  '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}\n';
const IDS = ["s1", "s2", "s3", "s10", "a", "é", "\u{1F600}", "\uFFFF", "s1 ", "b"];
const TIMES = ["0", "1", "5", "10", "100", "9007199254740991", "9007199254740993", "18446744073709551615"];

interface SpanSpec {
  id: string;
  parent: string | undefined;
  start: string;
  duration: string | undefined;
  measured: boolean;
  step: "forward" | "backward" | "optimizer" | undefined;
}

const spanArbitrary: fc.Arbitrary<SpanSpec> = fc.record({
  id: fc.constantFrom(...IDS),
  parent: fc.option(fc.constantFrom(...IDS, "missing"), { nil: undefined }),
  start: fc.constantFrom(...TIMES),
  duration: fc.option(fc.constantFrom(...TIMES), { nil: undefined }),
  measured: fc.boolean(),
  step: fc.option(fc.constantFrom("forward" as const, "backward" as const, "optimizer" as const), {
    nil: undefined,
  }),
});

interface OpSpec {
  span: string;
  duration: string;
  bytes: string;
  /** Where the op goes: before the span starts, right after it, or at the end. */
  at: "early" | "inside" | "late";
}

const opArbitrary: fc.Arbitrary<OpSpec> = fc.record({
  span: fc.constantFrom(...IDS, "missing"),
  duration: fc.constantFrom("0", "3", "7", "100", "9007199254740993"),
  bytes: fc.constantFrom("0", "16", "4096", "18446744073709551615"),
  at: fc.constantFrom("early" as const, "inside" as const, "late" as const),
});

function opLine(op: OpSpec): string {
  return `{"kind":"op","span_id":${JSON.stringify(op.span)},"op_name":"mm","shape":[2],"dtype":"f32","device":"cpu","duration_ns":${op.duration},"timestamp_ns":1,"storage_bytes":${op.bytes},"input_storage_bytes":0}\n`;
}

function traceText(specs: readonly SpanSpec[], ops: readonly OpSpec[] = []): string {
  const seen = new Set<string>();
  let text =
    META +
    ops
      .filter((op) => op.at === "early")
      .map(opLine)
      .join("");
  const ends: string[] = [];
  for (const spec of specs) {
    if (seen.has(spec.id)) continue; // the reader rejects duplicates before either analysis
    seen.add(spec.id);
    const parent = spec.parent === undefined ? "" : `,"parent_id":${JSON.stringify(spec.parent)}`;
    const step = spec.step === undefined ? "" : `,"step":"${spec.step}"`;
    text += `{"kind":"span_start","id":${JSON.stringify(spec.id)}${parent},"name":"n-${spec.id}","start_ns":${spec.start},"span_kind":"function","measured":${spec.measured}${step}}\n`;
    for (const op of ops) if (op.at === "inside" && op.span === spec.id) text += opLine(op);
    if (spec.duration !== undefined) {
      ends.push(`{"kind":"span_end","id":${JSON.stringify(spec.id)},"duration_ns":${spec.duration}}\n`);
    }
  }
  return (
    text +
    ends.join("") +
    ops
      .filter((op) => op.at === "late")
      .map(opLine)
      .join("")
  );
}

/** Counts, the measured total and each span's own ops, made here from the generated spans and ops. */
function expectFiguresOfSpecs(
  specs: readonly SpanSpec[],
  ops: readonly OpSpec[],
  coverage: HealthCoverage,
  summary: Omit<TraceSummary, "self_times">,
  costs: SpanCost[],
): void {
  const first = new Map<string, SpanSpec>();
  for (const spec of specs) if (!first.has(spec.id)) first.set(spec.id, spec);
  const spans = [...first.values()];
  // `traceText` writes an "inside" op only after its span's start.
  const written = ops.filter((op) => op.at !== "inside" || first.has(op.span));
  let measuredTotal = 0n;
  for (const span of spans) if (span.measured) measuredTotal += BigInt(span.duration ?? 0);
  expect(coverage).toMatchObject({
    spans: spans.length,
    root_spans: spans.filter((span) => span.parent === undefined).length,
    measured_spans: spans.filter((span) => span.measured).length,
    closed_spans: spans.filter((span) => span.duration !== undefined).length,
    operations: written.length,
  });
  expect(BigInt(summary.total_ns)).toBe(measuredTotal);
  expect(summary.op_count).toBe(written.length);
  expect(costs.map((cost) => cost.id)).toEqual([...first.keys()].sort(compareCodePoints));
  for (const cost of costs) {
    const own = written.filter((op) => op.span === cost.id);
    let ns = 0n;
    for (const op of own) ns += BigInt(op.duration);
    expect(cost.op_count).toBe(own.length);
    expect(BigInt(cost.op_ns)).toBe(ns);
    expect(BigInt(cost.self_ns) <= BigInt(cost.total_ns)).toBe(true);
  }
}

describe("span table", () => {
  it("gives the document's span health and summary figures", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(spanArbitrary, { maxLength: 12 }),
        fc.array(opArbitrary, { maxLength: 8 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 1, max: 5 }),
        fc.boolean(),
        async (specs, ops, reference, limit, batchSize, ranked) => {
          const text = traceText(specs, ops);
          const compat = reference ? ("reference" as const) : ("union" as const);
          const document = parseTraceText(text);
          const collector = new SpanCostCollector();
          const streamed = await summarizeStream(
            { text },
            { compat, rankLimit: limit, onEvent: (event) => collector.push(event) },
          );
          const columns = collector.finish({ compat });
          expect(Array.from(columns.rowsInIdOrder(), (row) => columns.cost(row))).toEqual(
            spanCosts(document, { compat }),
          );
          expect(Array.from(columns.rowsInIdOrder(), (row) => columns.record(row))).toEqual(document.spans);
          // The summary's own span costs, its ops folded from the columns (with or without rankings).
          const summarized = await summarizeColumns(
            { text },
            { compat, spanCosts: true, batchSize, ...(ranked ? { rankLimit: limit } : {}) },
          );
          const own = summarized.spanCosts;
          if (own === undefined) throw new Error("spanCosts asked for");
          const ownCosts = Array.from(own.rowsInIdOrder(), (row) => own.cost(row));
          expectFiguresOfSpecs(specs, ops, summarized.health.coverage, summarized.summary, ownCosts);
          expect(ownCosts).toEqual(spanCosts(document, { compat }));
          const slowest = queryTrace(document, "slowest", { compat, limit });
          const heaviest = queryTrace(document, "heaviest", { compat, limit });
          expect(streamed.rankings).toEqual({
            slowest_spans: slowest.slowest_spans,
            slowest_ops: slowest.slowest_ops,
            heaviest_spans: heaviest.heaviest_spans,
            heaviest_ops: heaviest.heaviest_ops,
          });
          expect(streamed.health).toEqual(analyzeHealth(document, { compat }));
          const { self_times: _selfTimes, ...figures } = summarize(document);
          expect(streamed.summary).toEqual(figures);
          expectFiguresOfSpecs(
            specs,
            ops,
            streamed.health.coverage,
            figures,
            spanCosts(document, { compat }),
          );
        },
      ),
      {
        numRuns: 400,
        examples: [
          // A child ending past 2^53 while every start and duration is below it: its end is not
          // exact in a double, so the parent's self time must come from the exact path.
          [
            [
              {
                id: "é",
                parent: undefined,
                start: "0",
                duration: "9007199254740991",
                measured: true,
                step: undefined,
              },
              {
                id: "s1",
                parent: "é",
                start: "9007199254740991",
                duration: "100",
                measured: false,
                step: undefined,
              },
            ],
            [],
            false,
            1,
            1,
            true,
          ],
        ],
      },
    );
  });

  it("stops past its span budget with a message that says what to do", async () => {
    let text = META;
    for (let index = 0; index < 70_000; index++) {
      text += `{"kind":"span_start","id":"span-${index}","name":"n","start_ns":0,"span_kind":"op"}\n`;
    }
    await expect(summarizeStream({ text }, { spanBudgetBytes: 1 << 20 })).rejects.toMatchObject({
      code: "memory_budget",
      message: expect.stringContaining("span budget"),
    });
  });
});

describe("IdTable", () => {
  it("interns any strings to dense indexes and gives them back, in code point order", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary", maxLength: 6 }), { maxLength: 200 }), (values) => {
        const table = new IdTable();
        const expected = new Map<string, number>();
        for (const value of values) {
          const index = table.intern(value);
          if (!expected.has(value)) expected.set(value, expected.size);
          expect(index).toBe(expected.get(value));
        }
        expect(table.size).toBe(expected.size);
        for (const [value, index] of expected) {
          expect(table.get(value)).toBe(index);
          expect(table.valueAt(index)).toBe(value);
        }
        expect(table.get("never added \u0000")).toBe(-1);
        const indexes = [...expected.values()];
        const byTable = [...indexes].sort((left, right) => table.compare(left, right));
        const byString = [...indexes].sort((left, right) => {
          const a = [...(table.valueAt(left) as string)].map(
            (character) => character.codePointAt(0) as number,
          );
          const b = [...(table.valueAt(right) as string)].map(
            (character) => character.codePointAt(0) as number,
          );
          for (let at = 0; at < Math.min(a.length, b.length); at++) {
            if (a[at] !== b[at]) return (a[at] as number) - (b[at] as number);
          }
          return a.length - b.length;
        });
        expect(byTable.map((index) => table.valueAt(index))).toEqual(
          byString.map((index) => table.valueAt(index)),
        );
      }),
    );
  });

  it("keeps 100,000 ids in a few megabytes", () => {
    const table = new IdTable();
    for (let index = 0; index < 100_000; index++) table.intern(`s${index}`);
    expect(table.size).toBe(100_000);
    expect(table.get("s99999")).toBe(99_999);
    expect(table.byteLength).toBeLessThan(4 << 20);
  });

  it("BitSet remembers set bits across growth", () => {
    const bits = new BitSet();
    for (const index of [0, 31, 32, 5000, 1 << 20]) bits.add(index);
    for (const index of [0, 31, 32, 5000, 1 << 20]) expect(bits.has(index)).toBe(true);
    for (const index of [1, 33, 4999, (1 << 20) + 1, 1 << 22]) expect(bits.has(index)).toBe(false);
  });
});
