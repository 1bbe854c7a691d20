// The `--fail-on` rule grammar of a comparison gate:
//
//   rules  = rule *( "," rule )              white space around tokens is ignored
//   rule   = [ scope "/" ] metric ">" limit
//   scope  = "span:" selector | "op:" selector
//   metric = "time" | "peak"
//   limit  = number "%" | number unit        the increase allowed, relative or absolute
//   unit   = "ns" | "us" | "µs" | "ms" | "s"             (time)
//          | "B" | "KB" | "MB" | "GB" | "KiB" | "MiB" | "GiB" | "TiB"   (peak)
//
// A selector runs to the last "/time" or "/peak"; one holding a comma is written as a JSON string
// (`span:"a,b"/time>5%`).
import { ComparisonInputError } from "./compare-error.js";

export type GateMetric = "time" | "peak";

export type GateScope =
  | { kind: "total" }
  | { kind: "span"; selector: string }
  | { kind: "op"; selector: string };

export type GateLimit = { kind: "percent"; percent: number } | { kind: "absolute"; value: bigint };

export interface GateRule {
  /** The rule as written (trimmed). */
  text: string;
  scope: GateScope;
  metric: GateMetric;
  limit: GateLimit;
}

const TIME_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
};
const BYTE_UNITS: Record<string, bigint> = {
  B: 1n,
  KB: 1_000n,
  MB: 1_000_000n,
  GB: 1_000_000_000n,
  KiB: 1n << 10n,
  MiB: 1n << 20n,
  GiB: 1n << 30n,
  TiB: 1n << 40n,
};

/** Splits on commas outside double-quoted selectors; each piece with its 1-based start column. */
function splitRules(text: string): { rule: string; column: number }[] {
  const pieces: { rule: string; column: number }[] = [];
  let start = 0;
  let quoted = false;
  for (let at = 0; at <= text.length; at++) {
    const char = text[at];
    if (char === "\\" && quoted) {
      at++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (at === text.length || (char === "," && !quoted)) {
      pieces.push({ rule: text.slice(start, at), column: start + 1 });
      start = at + 1;
    }
  }
  return pieces;
}

class RuleFailure extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** Parses a rule list (`time>5%,span:forward/time>10%`); a bad rule is a `ComparisonInputError` naming it and the character. */
export function parseGateRules(text: string): GateRule[] {
  const rules: GateRule[] = [];
  const pieces = splitRules(text);
  pieces.forEach(({ rule: raw, column: start }, index) => {
    const lead = raw.length - raw.trimStart().length;
    const rule = raw.trim();
    try {
      if (rule === "") throw new RuleFailure(0, "empty rule (two commas in a row, or a comma at an end)");
      rules.push(parseRule(rule));
    } catch (error) {
      if (!(error instanceof RuleFailure)) throw error;
      const column = start + lead + error.offset;
      throw new ComparisonInputError({
        code: "bad_rule",
        message: `rule ${index + 1} of ${pieces.length} (${JSON.stringify(rule)}), at character ${column}: ${error.message}`,
        rule,
        ruleIndex: index + 1,
        column,
      });
    }
  });
  return rules;
}

function parseRule(rule: string): GateRule {
  let scope: GateScope = { kind: "total" };
  let at = 0;
  const scoped = /^(span|op):/.exec(rule);
  if (scoped !== null) {
    const kind = scoped[1] as "span" | "op";
    at = scoped[0].length;
    let selector: string;
    if (rule[at] === '"') {
      const end = closingQuote(rule, at);
      try {
        selector = JSON.parse(rule.slice(at, end + 1)) as string;
      } catch {
        throw new RuleFailure(at, "the quoted selector is not a valid JSON string");
      }
      at = end + 1;
      if (rule[at] !== "/")
        throw new RuleFailure(at, 'expected "/" and a metric (time or peak) after the selector');
    } else {
      const metricAt = Math.max(rule.lastIndexOf("/time"), rule.lastIndexOf("/peak"));
      if (metricAt < at)
        throw new RuleFailure(at, `expected ${kind}:<selector>/time or ${kind}:<selector>/peak`);
      selector = rule.slice(at, metricAt);
      at = metricAt;
    }
    if (selector.trim() === "") throw new RuleFailure(scoped[0].length, `empty ${kind} selector`);
    scope = { kind, selector: selector.trim() };
    at++; // the "/"
  }
  const metric = /^\s*(time|peak)\b\s*/.exec(rule.slice(at));
  if (metric === null) throw new RuleFailure(at, 'expected a metric: "time" or "peak"');
  at += metric[0].length;
  const operator = /^(>=|<=|<|>|=)\s*/.exec(rule.slice(at));
  if (operator === null || operator[1] !== ">") {
    throw new RuleFailure(
      at,
      operator === null
        ? 'expected ">" and a limit'
        : `only ">" is supported (a rule says how much growth is too much), not "${operator[1]}"`,
    );
  }
  at += operator[0].length;
  return {
    text: rule,
    scope,
    metric: metric[1] as GateMetric,
    limit: parseLimit(rule.slice(at), at, metric[1] as GateMetric),
  };
}

function closingQuote(rule: string, from: number): number {
  for (let at = from + 1; at < rule.length; at++) {
    if (rule[at] === "\\") at++;
    else if (rule[at] === '"') return at;
  }
  throw new RuleFailure(from, "unterminated quoted selector");
}

function parseLimit(text: string, offset: number, metric: GateMetric): GateLimit {
  const match = /^([0-9]+)(?:\.([0-9]+))?\s*(%|[A-Za-zµ]+)?\s*$/.exec(text);
  const units = metric === "time" ? TIME_UNITS : BYTE_UNITS;
  const names = Object.keys(units).join(", ");
  if (match === null) {
    throw new RuleFailure(offset, `expected a limit: a number followed by % or a unit (${names})`);
  }
  const [, whole, fraction = "", unit] = match as unknown as [
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  const unitAt = offset + text.indexOf(unit ?? "\u0000");
  if (unit === undefined)
    throw new RuleFailure(offset + text.length, `the limit needs % or a unit (${names})`);
  if (unit === "%") return { kind: "percent", percent: Number(`${whole}.${fraction || "0"}`) };
  const factor = units[unit];
  if (factor === undefined) {
    throw new RuleFailure(unitAt, `unknown unit "${unit}" for ${metric}: use % or ${names}`);
  }
  const scale = 10n ** BigInt(fraction.length);
  const scaled = BigInt(whole + fraction) * factor;
  if (scaled % scale !== 0n) {
    throw new RuleFailure(
      offset,
      `${whole}.${fraction} ${unit} is not a whole number of ${metric === "time" ? "nanoseconds" : "bytes"}`,
    );
  }
  return { kind: "absolute", value: scaled / scale };
}
