// trace6.schema.json: the committed file matches the generator, and it accepts every line of the
// accepted fixtures and rejects the line-level negatives that JSON Schema can express.
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { buildTraceJsonSchema, renderTraceJsonSchema } from "../scripts/trace-json-schema.js";
import { physicalLines, readManifest } from "../test/fixtures.js";
import { trimTraceLine } from "./trim-trace-line.js";

const schemaPath = new URL("../trace6.schema.json", import.meta.url);
const committedText = readFileSync(schemaPath, "utf8");
const committed = JSON.parse(committedText) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: true, allErrors: false });
const validate = ajv.compile(committed);

// What JSON Schema cannot see, once a line is parsed with JSON.parse (see the README).
const NOT_EXPRESSIBLE: Record<string, string> = {
  "invalid/n12c-exponent-u64.jsonl": "5e3 parses to the integer 5000; the literal form is invisible",
  "invalid/n15-not-json.jsonl": "not JSON at all; there is nothing to validate",
};

function lineValues(file: string): { line: number; value: unknown }[] {
  const values: { line: number; value: unknown }[] = [];
  for (const [index, raw] of physicalLines(file).entries()) {
    const text = trimTraceLine(raw);
    if (text === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = Symbol.for("not-json");
    }
    values.push({ line: index + 1, value });
  }
  return values;
}

describe("trace6.schema.json", () => {
  it("equals the generator's output", () => {
    expect(committed).toEqual(JSON.parse(renderTraceJsonSchema()));
    expect(buildTraceJsonSchema().oneOf).toHaveLength(9);
    // JSON.parse rounds 2^64 − 1; the file must carry the exact digits.
    expect(committedText).toMatch(/"maximum": 18446744073709551615\b/);
  });

  it("is shipped by the package", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      exports: Record<string, unknown>;
      files: string[];
    };
    // Shipped once, from the package root (where node10 resolution also finds it).
    expect(manifest.exports["./trace6.schema.json"]).toBe("./trace6.schema.json");
    expect(manifest.files).toContain("trace6.schema.json");
  });

  const fixtures = readManifest();
  const accepted = fixtures.filter((entry) => entry.expect !== "parse_error" || entry.stage === "stream");
  it.each(accepted.map((entry) => [entry.file]))("accepts every line of %s", (file) => {
    for (const { line, value } of lineValues(file)) {
      const ok = validate(value);
      expect(ok, `${file}:${line} ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  const rejected = fixtures.filter((entry) => entry.expect === "parse_error" && entry.stage === "line");
  it.each(rejected.map((entry) => [entry.file, entry.line ?? 0] as const))("%s: line %i", (file, badLine) => {
    for (const { line, value } of lineValues(file)) {
      if (line !== badLine) {
        expect(validate(value), `${file}:${line}`).toBe(true);
        continue;
      }
      if (file in NOT_EXPRESSIBLE) {
        if (typeof value !== "symbol") expect(validate(value)).toBe(true);
      } else {
        expect(validate(value), `${file}:${line}`).toBe(false);
      }
    }
  });

  it.each([
    ['{"kind":"span_end","id":"a","duration_ns":-1}', false],
    ['{"kind":"span_end","id":"a","duration_ns":1.5}', false],
    ['{"kind":"span_end","id":"a","duration_ns":null}', false],
    ['{"kind":"span_end","id":"a","duration_ns":18446744073709551615}', true],
    [
      '{"kind":"op","span_id":"s","op_name":"o","dtype":"f32","device":"d","duration_ns":1,"output":null,"storage_bytes":null}',
      true,
    ],
    [
      '{"kind":"op","span_id":"s","op_name":"o","dtype":"f32","device":"d","duration_ns":1,"shape":[1,-1]}',
      false,
    ],
    ['{"kind":"gradient","event_id":"g","root":"r","key":"k","state":"zero","norm":null}', true],
    ['{"kind":"gradient","event_id":"g","root":"r","key":"k","state":"zero","norm":"1"}', false],
    ['{"kind":"span_end","id":"a","anything":[null,{"x":1}]}', true],
    ['["span_end","a"]', false],
    [
      '{"kind":"meta","schema":"s","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"d","timing_mode":"host","tags":{"b":1}}',
      false,
    ],
  ] as const)("%s → %s", (line, valid) => {
    expect(validate(JSON.parse(line))).toBe(valid);
  });
});
