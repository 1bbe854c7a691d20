// The gate: its rule grammar (and the errors that say what and where), and its checks on pairs
// with a planted change.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LAYERS, type Layer, trace } from "./compare-pair.test-support.js";
import { ComparisonInputError, compareTraces, type GateRule, parseGateRules } from "./index.js";

function failure(text: string): ComparisonInputError {
  try {
    parseGateRules(text);
  } catch (error) {
    if (ComparisonInputError.isInstance(error)) return error as ComparisonInputError;
    throw error;
  }
  throw new Error(`${text} parsed`);
}

describe("parseGateRules", () => {
  it("reads totals, spans and ops, in % or absolute units", () => {
    const rules = parseGateRules(
      'time>5%, peak>64MiB,span:forward/time>10%,op:matmul/time>2ms, span:a/b c/peak > 1.5KB,op:"x,y"/peak>0B',
    );
    expect(rules.map(({ scope, metric, limit }) => ({ scope, metric, limit }))).toEqual([
      { scope: { kind: "total" }, metric: "time", limit: { kind: "percent", percent: 5 } },
      { scope: { kind: "total" }, metric: "peak", limit: { kind: "absolute", value: 64n << 20n } },
      {
        scope: { kind: "span", selector: "forward" },
        metric: "time",
        limit: { kind: "percent", percent: 10 },
      },
      {
        scope: { kind: "op", selector: "matmul" },
        metric: "time",
        limit: { kind: "absolute", value: 2_000_000n },
      },
      {
        scope: { kind: "span", selector: "a/b c" },
        metric: "peak",
        limit: { kind: "absolute", value: 1500n },
      },
      { scope: { kind: "op", selector: "x,y" }, metric: "peak", limit: { kind: "absolute", value: 0n } },
    ]);
    expect(rules[4]?.text).toBe("span:a/b c/peak > 1.5KB");
    // A path ending in a segment named time is still a selector: the last "/time" is the metric.
    expect(parseGateRules("span:warm/time/time>1µs")[0]).toMatchObject({
      scope: { selector: "warm/time" },
      limit: { value: 1000n },
    });
  });

  it.each([
    ["time>5x", 1, 7, 'unknown unit "x" for time'],
    ["time>5MiB", 1, 7, 'unknown unit "MiB" for time'],
    ["peak>5ms", 1, 7, 'unknown unit "ms" for peak'],
    ["time>5%,,peak>1%", 2, 9, "empty rule"],
    ["time>5%, peak>1%,  op:x/time>9q", 3, 31, 'unknown unit "q"'],
    ["time>=5%", 1, 5, 'only ">" is supported'],
    ["walltime>5%", 1, 1, 'expected a metric: "time" or "peak"'],
    ["span:/time>5%", 1, 6, "empty span selector"],
    ["op:matmul>5%", 1, 4, "expected op:<selector>/time"],
    ["time>", 1, 6, "expected a limit"],
    ["time>1.5ns", 1, 6, "not a whole number of nanoseconds"],
    ["time>5", 1, 7, "the limit needs % or a unit"],
    ['span:"a/time>5%', 1, 6, "unterminated quoted selector"],
  ])("refuses %j: rule %i, character %i", (text, ruleIndex, column, message) => {
    const error = failure(text);
    expect(error.code).toBe("bad_rule");
    expect(error.ruleIndex).toBe(ruleIndex);
    expect(error.column).toBe(column);
    expect(error.message).toContain(message);
    expect(error.message).toContain(`at character ${column}:`);
  });

  it("reads back every rule it writes, and never throws anything but a rule error", () => {
    const selector = fc
      .stringMatching(/^[a-z][a-z0-9_./ -]{0,12}$/)
      .filter((text) => !/\/(time|peak)/.test(text));
    const rule = fc.record({
      scope: fc.oneof(
        fc.constant(undefined),
        fc
          .tuple(
            fc.constantFrom("span", "op"),
            selector.map((text) => text.trim()),
          )
          .filter(([, text]) => text !== ""),
      ),
      metric: fc.constantFrom("time", "peak"),
      amount: fc.nat({ max: 100_000 }),
      percent: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(rule, { minLength: 1, maxLength: 4 }), (specs) => {
        const text = specs
          .map(({ scope, metric, amount, percent }) => {
            const unit = percent ? "%" : metric === "time" ? "us" : "KiB";
            return `${scope === undefined ? "" : `${scope[0]}:${scope[1]}/`}${metric}>${amount}${unit}`;
          })
          .join(",");
        const rules = parseGateRules(text);
        expect(rules.map((parsed: GateRule) => parsed.metric)).toEqual(specs.map((spec) => spec.metric));
        rules.forEach((parsed, index) => {
          const spec = specs[index] as (typeof specs)[number];
          expect(parsed.limit).toEqual(
            spec.percent
              ? { kind: "percent", percent: spec.amount }
              : { kind: "absolute", value: BigInt(spec.amount) * (spec.metric === "time" ? 1000n : 1024n) },
          );
          if (spec.scope !== undefined)
            expect(parsed.scope).toEqual({ kind: spec.scope[0], selector: spec.scope[1] });
        });
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        try {
          parseGateRules(text);
        } catch (error) {
          expect(ComparisonInputError.isInstance(error)).toBe(true);
        }
      }),
    );
  });
});

describe("the gate of compareTraces", () => {
  const slowed = structuredClone(LAYERS);
  (slowed[1] as Layer).ops[0] = ["matmul", 2700]; // backward matmul +700 ns of a 4212 ns step
  (slowed[1] as Layer).kept = [800, "gradient"]; // backward keeps +300 B at the peak
  const gate = (rules: string) =>
    compareTraces(trace(LAYERS), trace(slowed), { failOn: parseGateRules(rules) }).gate;

  it("breaks a total time rule in % only past its limit", () => {
    expect(gate("time>16%")?.passed).toBe(false);
    expect(gate("time>17%")?.passed).toBe(true);
    expect(gate("time>699ns")?.passed).toBe(false);
    expect(gate("time>700ns")?.passed).toBe(true);
    expect(gate("time>16%")?.checks[0]).toMatchObject({
      rule: "time>16%",
      subject: "total",
      baseline: 4212,
      candidate: 4912,
      delta: 700,
      broken: true,
    });
  });

  it("checks each span path and op a selector names", () => {
    const result = gate("span:backward/time>20%,span:forward/time>0ns,op:matmul/time>600ns,op:relu/time>0ns");
    expect(result?.passed).toBe(false);
    expect(result?.checks.map((check) => [check.subject, check.delta, check.broken])).toEqual([
      ["span e/model/update-000001/backward [function]/Backward", 700, true],
      ["op matmul", 700, true],
      ["span e/model/update-000001/forward [function]/Forward", 0, false],
      ["op relu", 0, false],
    ]);
  });

  it("checks the peak and what a span or op holds at it", () => {
    expect(gate("peak>299B")?.passed).toBe(false);
    expect(gate("peak>300B")?.passed).toBe(true);
    const spans = gate("span:backward/peak>50%,span:optimizer/peak>0B");
    expect(
      spans?.checks.map((check) => [check.subject, check.baseline, check.candidate, check.broken]),
    ).toEqual([
      ["span e/model/update-000001/backward [function]/Backward", 500, 800, true],
      // The optimizer's scratch is live at both peaks (each reached in the optimizer).
      ["span e/model/update-000001/optimizer [function]/Optimizer", 100, 100, false],
    ]);
    // alloc_op holds 500 + 100 at the baseline peak, 800 + 100 at the candidate's: +50%.
    expect(gate("op:alloc_op/peak>49%")?.passed).toBe(false);
    expect(gate("op:alloc_op/peak>50%")?.passed).toBe(true);
  });

  it("says which rule names nothing", () => {
    expect(() => gate("time>5%,span:fowrard/time>10%")).toThrowError(
      'rule 2 ("span:fowrard/time>10%"): no span path "fowrard" in either trace\'s measured region',
    );
    expect(() => gate("op:conv/peak>1B")).toThrowError(
      'rule 1 ("op:conv/peak>1B"): no op name "conv" among the allocations live at either peak',
    );
  });
});
