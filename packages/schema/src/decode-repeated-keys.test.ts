// Repeated keys (spec §2.1, checked against a build of the reference): a repeated UNKNOWN key is
// ignored whatever its values, in every kind and every decoding path; a repeated KNOWN key (`kind`
// or a field of the kind) is a "duplicate field"; the ignored value still obeys the JSON limits
// (§6.1 range, nesting, §4.6 lone surrogates). Inside a string map (`tags`) the last value wins,
// but every value, replaced ones included, must be a string (§2.2).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { physicalLines } from "../test/fixtures.js";
import { decodeAnyJson } from "./decode-any-json.js";
import { decodeCanonicalLine } from "./decode-canonical-bytes.js";
import { decodeCompactText } from "./decode-compact-text.js";
import { decodePlainCompactText } from "./decode-plain-compact-text.js";
import { decodeTraceLine } from "./decode-trace-line.js";
import { EVENT_LAYOUTS } from "./event-layouts.js";
import { TraceEvent } from "./events.js";
import { trimTraceLine } from "./trim-trace-line.js";

type Kind = keyof typeof EVENT_LAYOUTS;
const KINDS = Object.keys(EVENT_LAYOUTS) as Kind[];

/** One fixture line of every kind, each with every optional key present where a fixture has it. */
const SAMPLES: Record<Kind, string> = (() => {
  const samples: Partial<Record<Kind, string>> = {};
  for (const file of ["valid/golden-train.jsonl", "valid/edges.jsonl", "valid/reserved-bytes.jsonl"]) {
    for (const raw of physicalLines(file)) {
      const line = trimTraceLine(raw);
      if (line === "") continue;
      const kind = (JSON.parse(line) as { kind: Kind }).kind;
      const known = samples[kind];
      if (known === undefined || line.length > known.length) samples[kind] = line;
    }
  }
  for (const kind of KINDS) expect(samples[kind], kind).toBeDefined();
  return samples as Record<Kind, string>;
})();

const encoder = new TextEncoder();

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined));
}

/** The line's members `"key":value` as text, split at top-level commas. */
function members(line: string): string[] {
  const parsed = JSON.parse(line) as Record<string, unknown>;
  return Object.entries(parsed).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`);
}

function insertMembers(line: string, inserted: string[], at: number): string {
  const list = members(line);
  const position = at % (list.length + 1);
  list.splice(position, 0, ...inserted);
  return `{${list.join(",")}}`;
}

function decoded(line: string) {
  const result = decodeTraceLine(line);
  if (!result.ok) throw new Error(`${line}: ${result.error.message}`);
  return result.event;
}

/** Every JSON value, including deep ones; keys that are never known keys of any kind. */
const unknownValue = fc.jsonValue({ maxDepth: 3 });
const allKnown = new Set(KINDS.flatMap((kind) => ["kind", ...EVENT_LAYOUTS[kind].fields.map((f) => f.key)]));
const unknownKey = fc.string({ minLength: 1, maxLength: 8 }).filter((key) => !allKnown.has(key));

describe("a repeated unknown key is ignored (spec §2.1)", () => {
  it("in every kind, whatever the values, by every decoding path", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KINDS),
        unknownKey,
        fc.array(unknownValue, { minLength: 2, maxLength: 4 }),
        fc.nat(),
        fc.boolean(),
        (kind, key, values, at, spaced) => {
          const original = SAMPLES[kind];
          const inserted = values.map((value) => `${JSON.stringify(key)}:${JSON.stringify(value)}`);
          let line = insertMembers(original, inserted, at);
          if (spaced) line = line.replace(/,"/g, ', "');
          const expected = decoded(original);
          // decodeTraceLine (every tier behind it), and the exact tier on its own.
          expect(decoded(line)).toEqual(expected);
          expect(decodeAnyJson(line, JSON.parse(line), kind)).toEqual(expected);
          // The proof-based tiers cannot prove such a line and hand it on; they never accept it.
          expect(decodePlainCompactText(line, JSON.parse(line), kind)).toBeUndefined();
          expect(decodeCompactText(line, JSON.parse(line), kind)).toBeUndefined();
          // The canonical byte reader hands it on too (unknown keys are not canonical).
          expect(decodeCanonicalLine(encoder.encode(line))).toBeUndefined();
          // zod over JSON.parse sees the last value only and accepts the line.
          const zod = TraceEvent.safeParse(JSON.parse(line));
          expect(zod.success).toBe(true);
          if (zod.success) expect(withoutUndefined(zod.data)).toEqual(expected);
        },
      ),
      { numRuns: 600 },
    );
  });

  it("accepts the issue's line and an escaped spelling of the same unknown key", () => {
    expect(decoded('{"kind":"span_end","id":"s1","duration_ns":1000,"note":"a","note":"b"}')).toEqual({
      kind: "span_end",
      id: "s1",
      duration_ns: 1000,
    });
    expect(decoded('{"kind":"span_end","id":"s1","note":[],"\\u006eote":null,"duration_ns":7}')).toEqual({
      kind: "span_end",
      id: "s1",
      duration_ns: 7,
    });
  });

  it("leaves an unknown kind an unknown variant, repeated unknown keys or not", () => {
    const result = decodeTraceLine('{"kind":"span_middle","x":1,"x":2}');
    expect(result.ok ? undefined : result.error.code).toBe("unknown_variant");
  });
});

describe("a repeated known key stays a duplicate field", () => {
  it("for `kind` and every field of every kind, wherever the copy goes", () => {
    const cases = KINDS.flatMap((kind) =>
      ["kind", ...EVENT_LAYOUTS[kind].fields.map((f) => f.key)].map((key) => [kind, key] as const),
    );
    fc.assert(
      fc.property(fc.constantFrom(...cases), fc.nat(), fc.nat(), ([kind, key], first, second) => {
        const parsed = JSON.parse(SAMPLES[kind]) as Record<string, unknown>;
        // The sample's own value, or a valid one for a key the sample does not carry.
        const value = key in parsed ? parsed[key] : null;
        const copy = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
        let line = insertMembers(SAMPLES[kind], [copy], first);
        if (!(key in parsed)) line = insertMembers(line, [copy], second);
        const result = decodeTraceLine(line);
        expect(result.ok, line).toBe(false);
        if (!result.ok) {
          expect(result.error.code).toBe("duplicate_field");
          expect(result.error.message).toBe(`duplicate field \`${key}\` at \`${kind}.${key}\``);
          expect(result.error.field).toBe(`${kind}.${key}`);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("also when unknown keys are repeated in the same line", () => {
    const result = decodeTraceLine('{"kind":"span_end","x":1,"id":"a","x":2,"id":"b"}');
    expect(result.ok ? undefined : result.error).toEqual({
      code: "duplicate_field",
      message: "duplicate field `id` at `span_end.id`",
      field: "span_end.id",
    });
  });
});

describe("the ignored value still obeys the JSON limits", () => {
  const line = (first: string, second: string) =>
    `{"kind":"span_end","id":"s1","note":${first},"duration_ns":5,"note":${second}}`;

  it("rejects a number outside the f64 range, in either copy", () => {
    for (const text of [line("1e400", "1"), line("1", "1e400"), line("[1,-1e400]", '"x"')]) {
      const result = decodeTraceLine(text);
      expect(result.ok ? undefined : result.error.code, text).toBe("number_out_of_range");
      expect(result.ok ? undefined : result.error.message, text).toContain("1e400");
    }
  });

  it("rejects nesting of 127 levels or more and accepts 126", () => {
    const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
    for (const [first, second] of [
      [nested(126), "1"],
      ["1", nested(126)],
    ] as const) {
      expect(decodeTraceLine(line(first, second)).ok).toBe(true);
    }
    for (const [first, second] of [
      [nested(127), "1"],
      ["1", nested(127)],
      ['{"a":1}', `{"b":${nested(126)}}`],
    ] as const) {
      const result = decodeTraceLine(line(first, second));
      expect(result.ok ? undefined : result.error.code).toBe("invalid_json");
      expect(result.ok ? undefined : result.error.message).toContain("recursion limit");
    }
  });

  it("rejects a lone surrogate escape, in either copy, and accepts a pair", () => {
    for (const text of [line('"\\ud800"', "1"), line("1", '"\\udc00"'), line('{"k":["\\ud83d"]}', "2")]) {
      const result = decodeTraceLine(text);
      expect(result.ok ? undefined : result.error.code, text).toBe("invalid_json");
      expect(result.ok ? undefined : result.error.message, text).toContain("surrogate");
    }
    expect(decodeTraceLine(line('"\\ud83d\\ude00"', '"x"')).ok).toBe(true);
  });
});

describe("a repeated tag key does not hide a bad value (spec §2.2)", () => {
  const meta = (tags: string) => SAMPLES.meta.replace(/"tags":\{[^}]*\}/, () => `"tags":${tags}`);

  it.each([
    ['{"batch":128,"batch":"128"}', "invalid type: integer `128`, expected a string", "meta.tags.batch"],
    ['{"a":null,"a":"1"}', "invalid type: null, expected a string", "meta.tags.a"],
    ['{"a":[],"a":"2"}', "invalid type: sequence, expected a string", "meta.tags.a"],
    ['{"a":"1","a":{"x":"y"}}', "invalid type: map, expected a string", "meta.tags.a"],
    ['{"a":"1","b":true,"b":"2"}', "invalid type: boolean `true`, expected a string", "meta.tags.b"],
    ['{"a":1.5,"\\u0061":"2"}', "invalid type: floating point `1.5`, expected a string", "meta.tags.a"],
  ])("rejects %s", (tags, message, field) => {
    const result = decodeTraceLine(meta(tags));
    expect(result.ok ? undefined : result.error).toEqual({
      code: "invalid_type",
      message: `${message} at \`${field}\``,
      field,
    });
  });

  it("accepts repeated keys whose values are all strings; the last wins", () => {
    const event = decoded(meta('{"a":"1","b":"x","a":"2"}'));
    expect(event.kind === "meta" ? { ...event.tags } : undefined).toEqual({ a: "2", b: "x" });
  });

  it("names the first bad value in text order, for random maps with repeated keys", () => {
    const entry = fc.tuple(
      fc.constantFrom("a", "b", "c"),
      fc.oneof(
        { weight: 3, arbitrary: fc.string({ maxLength: 3 }) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
      ),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), (entries) => {
        const tags = `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(",")}}`;
        const result = decodeTraceLine(meta(tags));
        const bad = entries.find(([, value]) => typeof value !== "string");
        if (bad === undefined) {
          expect(result.ok).toBe(true);
          const last = Object.fromEntries(entries);
          if (result.ok && result.event.kind === "meta") expect({ ...result.event.tags }).toEqual(last);
        } else {
          expect(result.ok ? undefined : result.error.field).toBe(`meta.tags.${bad[0]}`);
          expect(result.ok ? undefined : result.error.code).toBe("invalid_type");
        }
      }),
      { numRuns: 500 },
    );
  });
});
