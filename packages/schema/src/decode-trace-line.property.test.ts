// The table-generated validators agree with the zod schemas: for random objects shaped like events
// (valid and mutated), decodeTraceLine(JSON) accepts exactly when zod accepts, with equal output.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeAnyJson } from "./decode-any-json.js";
import { decodeCompactText } from "./decode-compact-text.js";
import { decodePlainCompactText } from "./decode-plain-compact-text.js";
import { decodeTraceLine } from "./decode-trace-line.js";
import { TraceEvent } from "./events.js";

type Shape = Record<string, fc.Arbitrary<unknown>>;

const u64 = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 1_000_000 }) },
  { weight: 2, arbitrary: fc.constantFrom(0, Number.MAX_SAFE_INTEGER) },
  {
    weight: 2,
    arbitrary: fc.bigInt({ min: BigInt(Number.MAX_SAFE_INTEGER) + 1n, max: 18446744073709551615n }),
  },
);
const text = fc.string({ maxLength: 8 });
const dims = fc.array(u64, { maxLength: 4 });
const norm = fc.double({ noNaN: true, noDefaultInfinity: true });

const shapes: Record<string, Shape> = {
  meta: {
    schema: fc.constant("candle-graph/trace/6"),
    run_id: text,
    correlation_id: text,
    entrypoint: text,
    phase: fc.constantFrom("train", "infer"),
    timestamp: text,
    capture_step: u64,
    warmup_steps: u64,
    device: text,
    measured_region_device_synchronized: fc.boolean(),
    timing_mode: fc.constantFrom("host", "device_synchronized"),
    tags: fc.dictionary(
      fc.string({ minLength: 1, maxLength: 4 }).filter((key) => key !== "__proto__"),
      text,
      {
        maxKeys: 3,
      },
    ),
    candle_version: text,
  },
  span_start: {
    id: text,
    parent_id: text,
    name: text,
    start_ns: u64,
    span_kind: fc.constantFrom("function", "op", "module"),
    measured: fc.boolean(),
    step: fc.constantFrom("forward", "backward", "optimizer"),
  },
  span_end: { id: text, duration_ns: u64 },
  op: {
    span_id: text,
    op_name: text,
    inputs: fc.array(text, { maxLength: 3 }),
    output: text,
    shape: dims,
    dtype: text,
    device: text,
    duration_ns: u64,
    timestamp_ns: u64,
    storage_bytes: u64,
    input_storage_bytes: u64,
  },
  tensor: {
    span_id: text,
    tensor_id: text,
    shape: dims,
    dtype: text,
    device: text,
    requires_grad: fc.boolean(),
    storage_bytes: u64,
    category: fc.constantFrom("parameter", "activation", "gradient", "optimizer", "other"),
  },
  memory: {
    timestamp_ns: u64,
    tensor_id: text,
    span_id: text,
    op_name: text,
    device: text,
    bytes: u64,
    action: fc.constantFrom("alloc", "free"),
    shape: dims,
    dtype: text,
    category: fc.constantFrom("parameter", "activation", "gradient", "optimizer", "other"),
  },
  device_memory: { timestamp_ns: u64, device: text, used_bytes: u64, free_bytes: u64, reserved_bytes: u64 },
  gradient: {
    event_id: text,
    root: text,
    key: text,
    state: fc.constantFrom("present", "missing", "zero", "non_finite"),
    norm,
  },
  edge: { from_span: text, to_span: text, duration_ns: u64 },
};

/** Values that replace a field in mutated events: wrong types, nulls, out-of-range numbers. */
const wrongValue = fc.constantFrom<unknown>(
  null,
  "10",
  "Train",
  true,
  1.5,
  -1,
  [],
  [1, "x"],
  {},
  { a: 1 },
  18446744073709551616n,
);

type Mutation = { type: "drop" | "replace"; field: string; value?: unknown };

const eventCase = fc
  .constantFrom(...Object.keys(shapes))
  .chain((kind) => {
    const shape = shapes[kind] as Shape;
    const fields = Object.keys(shape);
    return fc.record({
      kind: fc.constant(kind),
      values: fc.record(shape, { requiredKeys: [] }),
      mutations: fc.array(
        fc.record({
          type: fc.constantFrom<"drop" | "replace">("drop", "replace"),
          field: fc.constantFrom(...fields, "kind"),
          value: wrongValue,
        }) as fc.Arbitrary<Mutation>,
        { maxLength: 2 },
      ),
      extra: fc.dictionary(fc.constantFrom("x_note", "note", "kind2", "param_key"), fc.jsonValue(), {
        maxKeys: 2,
      }),
    });
  })
  .map(({ kind, values, mutations, extra }) => {
    const event: Record<string, unknown> = { kind, ...extra, ...values };
    for (const mutation of mutations) {
      if (mutation.type === "drop") delete event[mutation.field];
      else event[mutation.field] = mutation.value;
    }
    return event;
  });

/** Complete events of every kind, no mutations: the lines a writer produces. */
const validEvent = fc
  .constantFrom(...Object.keys(shapes))
  .chain((kind) =>
    fc.record(shapes[kind] as Shape).map((values) => ({ kind, ...values }) as Record<string, unknown>),
  );

/** JSON with bigints written as exact digits and -0 kept as `-0`. */
function toJson(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(toJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([key, entry]) => `${JSON.stringify(key)}:${toJson(entry)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** zod leaves own `undefined` properties for null-as-absent keys; the decoder omits them. */
function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined));
}

describe("decodeTraceLine agrees with the zod schemas", () => {
  it("accepts exactly what zod accepts, with the same output", () => {
    fc.assert(
      fc.property(eventCase, (event) => {
        const line = toJson(event);
        const decoded = decodeTraceLine(line);
        // On the wire a big integer in `norm` is just a number; zod must see what the line means.
        const wireMeaning = typeof event.norm === "bigint" ? { ...event, norm: Number(event.norm) } : event;
        const expected = TraceEvent.safeParse(wireMeaning);
        expect(decoded.ok, `${line}\n${decoded.ok ? "" : decoded.error.message}`).toBe(expected.success);
        if (decoded.ok && expected.success) {
          expect(decoded.event).toEqual(withoutUndefined(expected.data as Record<string, unknown>));
          expect(Object.keys(decoded.event).sort()).toEqual(
            Object.keys(withoutUndefined(expected.data as Record<string, unknown>)).sort(),
          );
        }
      }),
      { numRuns: 3000 },
    );
  });

  /** A compact line of an event (valid or mutated), or the same line with spaces after commas. */
  const lineCase = fc.tuple(fc.oneof(eventCase, validEvent), fc.boolean()).map(([event, spaced]) => {
    const compact = toJson(event);
    const line = spaced ? compact.replace(/,"/g, ', "') : compact;
    const kind = typeof event.kind === "string" ? event.kind : "event";
    return { line, compact, spaced, kind };
  });

  /** The exact path's event, or undefined where it rejects the line. */
  function exactOrUndefined(line: string, kind: string): unknown {
    try {
      return decodeAnyJson(line, JSON.parse(line), kind);
    } catch {
      return undefined;
    }
  }

  /**
   * Every line `tier` accepts must be compact and decode to the any-JSON tier's event (then
   * `alsoCheck` runs on both); of 2000 random lines it must accept more than 100.
   */
  function expectTierAgreesWithAnyJson(
    tier: typeof decodeCompactText,
    alsoCheck: (accepted: object, exact: unknown, line: string, kind: string) => void = () => {},
  ): void {
    let acceptedCount = 0;
    fc.assert(
      fc.property(lineCase, ({ line, compact, spaced, kind }) => {
        const exact = exactOrUndefined(line, kind);
        const accepted = tier(line, JSON.parse(line), kind);
        if (accepted === undefined) return;
        acceptedCount++;
        expect(spaced && line !== compact).toBe(false);
        expect(accepted).toEqual(exact);
        alsoCheck(accepted, exact, line, kind);
      }),
      { numRuns: 2000 },
    );
    expect(acceptedCount).toBeGreaterThan(100);
  }

  it("takes the compact-text tier only where the any-JSON tier gives the same event", () => {
    expectTierAgreesWithAnyJson(decodeCompactText);
  });

  it("takes the plain compact-text tier only where the compact-text and any-JSON tiers give the same event", () => {
    expectTierAgreesWithAnyJson(decodePlainCompactText, (accepted, exact, line, kind) => {
      expect(Object.keys(accepted).sort()).toEqual(Object.keys(exact as object).sort());
      // The very object the compact-text tier would return, keys in the same order.
      const viaCompactText = decodeCompactText(line, JSON.parse(line), kind);
      expect(viaCompactText).toEqual(accepted);
      expect(Object.keys(viaCompactText as object)).toEqual(Object.keys(accepted));
    });
  });
});
