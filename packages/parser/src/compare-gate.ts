// Checks a comparison against gate rules (`parseGateRules`): each rule is checked on the total, or
// on every span path / op name its selector names, with the same figures the attribution uses.

import type { AttributionSide } from "./compare-attribution-side.js";
import { ComparisonInputError } from "./compare-error.js";
import type { GateMetric, GateRule } from "./compare-gate-rules.js";
import type { SignedInteger } from "./signed-integer.js";
import { signedInteger } from "./signed-integer.js";

export interface GateCheck {
  /** The rule as written. */
  rule: string;
  metric: GateMetric;
  /** `total`, `span <path key>` or `op <op name>`. */
  subject: string;
  baseline: SignedInteger;
  candidate: SignedInteger;
  delta: SignedInteger;
  /** Absent when the baseline is 0. */
  delta_percent?: number;
  broken: boolean;
}

export interface GateResult {
  rules: string[];
  passed: boolean;
  /** Every check made, broken ones first (by rule order within each group). */
  checks: GateCheck[];
}

/** What a side gives the gate. */
export interface GateSide {
  total_ns: bigint;
  peak_bytes: bigint;
  /** Inclusive span totals of the measured subtree, by span path key. */
  span_totals: Map<string, bigint>;
  attribution: AttributionSide;
}

const SPAN_KEY = /^(.*) \[[a-z_]+\](?:\/(?:Forward|Backward|Optimizer))?$/s;

/** Whether a span path key is named by a selector: the whole key, the path, or the path's last segments. */
export function spanSelected(key: string, selector: string): boolean {
  if (key === selector) return true;
  const path = SPAN_KEY.exec(key)?.[1] ?? key;
  return path === selector || path.endsWith(`/${selector}`);
}

function figures(side: GateSide, rule: GateRule): Map<string, bigint> {
  const scope = rule.scope;
  const values = new Map<string, bigint>();
  const add = (subject: string, value: bigint) => values.set(subject, (values.get(subject) ?? 0n) + value);
  if (scope.kind === "total") {
    add("total", rule.metric === "time" ? side.total_ns : side.peak_bytes);
  } else if (scope.kind === "span") {
    if (rule.metric === "time") {
      for (const [key, total] of side.span_totals)
        if (spanSelected(key, scope.selector)) add(`span ${key}`, total);
    } else {
      for (const part of side.attribution.peak.parts.values())
        if (spanSelected(part.span, scope.selector)) add(`span ${part.span}`, part.bytes);
    }
  } else if (rule.metric === "time") {
    for (const part of side.attribution.ops)
      if (part.op_name === scope.selector) add(`op ${part.op_name}`, part.ns);
  } else {
    for (const part of side.attribution.peak.parts.values())
      if (part.op === scope.selector) add(`op ${part.op}`, part.bytes);
  }
  return values;
}

function broken(rule: GateRule, before: bigint, delta: bigint): boolean {
  const limit = rule.limit;
  if (limit.kind === "absolute") return delta > limit.value;
  if (before === 0n) return delta > 0n;
  return (Number(delta) / Number(before)) * 100 > limit.percent;
}

/** Checks every rule; a span or op selector that names nothing in either trace is a `ComparisonInputError`. */
export function evaluateGate(
  rules: readonly GateRule[],
  baseline: GateSide,
  candidate: GateSide,
): GateResult {
  const failed: GateCheck[] = [];
  const passed: GateCheck[] = [];
  rules.forEach((rule, index) => {
    const before = figures(baseline, rule);
    const after = figures(candidate, rule);
    const subjects = [...new Set([...before.keys(), ...after.keys()])].sort();
    if (subjects.length === 0) {
      const what = rule.scope.kind === "span" ? "span path" : rule.scope.kind === "op" ? "op name" : "figure";
      const selector = rule.scope.kind === "total" ? "" : rule.scope.selector;
      const where =
        rule.metric === "peak"
          ? " among the allocations live at either peak"
          : " in either trace's measured region";
      throw new ComparisonInputError({
        code: "rule_matches_nothing",
        message: `rule ${index + 1} (${JSON.stringify(rule.text)}): no ${what} ${JSON.stringify(selector)}${where}`,
        rule: rule.text,
        ruleIndex: index + 1,
      });
    }
    for (const subject of subjects) {
      const left = before.get(subject) ?? 0n;
      const right = after.get(subject) ?? 0n;
      const delta = right - left;
      const check: GateCheck = {
        rule: rule.text,
        metric: rule.metric,
        subject,
        baseline: signedInteger(left),
        candidate: signedInteger(right),
        delta: signedInteger(delta),
        broken: broken(rule, left, delta),
      };
      if (left !== 0n) check.delta_percent = (Number(delta) / Number(left)) * 100;
      (check.broken ? failed : passed).push(check);
    }
  });
  return {
    rules: rules.map((rule) => rule.text),
    passed: failed.length === 0,
    checks: [...failed, ...passed],
  };
}
