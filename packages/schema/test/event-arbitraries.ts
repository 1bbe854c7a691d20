// Arbitrary trace events for property tests of the canonical tiers: `canonicalSubset` stays inside
// what the canonical-bytes tier reads itself, `anyEvent` goes outside it (escapes, non-ASCII,
// values above 15 digits, non-finite norms).
import fc from "fast-check";
import type { TraceEvent } from "../src/events.js";

/** Printable ASCII other than `"` and `\`: the strings the canonical-bytes tier reads itself. */
export const plainText = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0x7f })
    .filter((code) => code !== 0x22 && code !== 0x5c)
    .map((code) => String.fromCharCode(code)),
  maxLength: 40,
});
/** Anything else a writer may put in a string: escapes, controls, non-ASCII, astral characters. */
const anyText = fc.oneof(
  { weight: 4, arbitrary: plainText },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('say "hi"', "back\\slash", "tab\there", "line\nfeed", "é", "😀", "\u007f"),
  },
);
/** u64 values up to 15 digits: plain numbers the canonical-bytes tier reads itself. */
const plainU64 = fc.oneof(
  { weight: 5, arbitrary: fc.nat({ max: 1_000_000 }) },
  { weight: 2, arbitrary: fc.constantFrom(0, 1, 10, 100, 999_999_999_999_999) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 999_999_999_999_999 }) },
);
const anyU64 = fc.oneof(
  { weight: 6, arbitrary: plainU64 },
  { weight: 1, arbitrary: fc.constantFrom(1_000_000_000_000_000, Number.MAX_SAFE_INTEGER) },
  { weight: 1, arbitrary: fc.bigInt({ min: 9_007_199_254_740_992n, max: 18_446_744_073_709_551_615n }) },
);
const finiteNorm = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1, 0.5, 1e-7, 1e21, 123456.789, 5e-324, 1.7976931348623157e308),
);
const categories = fc.constantFrom("parameter", "activation", "gradient", "optimizer", "other");

/** Every non-meta event; `text` and `u64` choose how far outside the canonical-bytes tier's subset values may go. */
function events(text: fc.Arbitrary<string>, u64: fc.Arbitrary<number | bigint>, norm: fc.Arbitrary<number>) {
  const shape = fc.array(u64, { maxLength: 6 });
  const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
  const kinds: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
    span_start: fc.record({
      kind: fc.constant("span_start"),
      id: text,
      parent_id: optional(text),
      name: text,
      start_ns: u64,
      span_kind: fc.constantFrom("function", "op", "module"),
      measured: fc.boolean(),
      step: optional(fc.constantFrom("forward", "backward", "optimizer")),
    }),
    span_end: fc.record({ kind: fc.constant("span_end"), id: text, duration_ns: u64 }),
    op: fc.record({
      kind: fc.constant("op"),
      span_id: text,
      op_name: text,
      inputs: fc.array(text, { maxLength: 5 }),
      output: optional(text),
      shape,
      dtype: text,
      device: text,
      duration_ns: u64,
      timestamp_ns: u64,
      storage_bytes: optional(u64),
      input_storage_bytes: u64,
    }),
    tensor: fc.record({
      kind: fc.constant("tensor"),
      span_id: text,
      tensor_id: text,
      shape,
      dtype: text,
      device: text,
      requires_grad: fc.boolean(),
      storage_bytes: optional(u64),
      category: categories,
    }),
    memory: fc.record({
      kind: fc.constant("memory"),
      timestamp_ns: u64,
      tensor_id: text,
      span_id: text,
      op_name: optional(text),
      device: text,
      bytes: u64,
      action: fc.constantFrom("alloc", "free"),
      shape,
      dtype: text,
      category: categories,
    }),
    device_memory: fc.record({
      kind: fc.constant("device_memory"),
      timestamp_ns: u64,
      device: text,
      used_bytes: u64,
      free_bytes: u64,
      reserved_bytes: optional(u64),
    }),
    gradient: fc.record({
      kind: fc.constant("gradient"),
      event_id: text,
      root: text,
      key: text,
      state: fc.constantFrom("present", "missing", "zero", "non_finite"),
      norm: optional(norm),
    }),
    edge: fc.record({ kind: fc.constant("edge"), from_span: text, to_span: text, duration_ns: u64 }),
  };
  // fc.record leaves optional keys present with `undefined`; an event has them absent.
  return fc
    .oneof(...Object.values(kinds))
    .map(
      (event) =>
        Object.fromEntries(
          Object.entries(event).filter(([, value]) => value !== undefined),
        ) as unknown as TraceEvent,
    );
}

export const canonicalSubset = events(plainText, plainU64, finiteNorm);
export const anyEvent = events(
  anyText,
  anyU64,
  fc.oneof(finiteNorm, fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY)),
);
