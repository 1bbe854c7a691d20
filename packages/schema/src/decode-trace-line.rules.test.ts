// Table-driven tests of each line rule of spec §2–§6 and §8.2, the Appendix B sample lines, and
// a property that the compact-text tier never accepts what the any-JSON tier rejects.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeTraceLine } from "./decode-trace-line.js";
import { EVENT_LAYOUTS } from "./event-layouts.js";
import type { LineErrorCode } from "./line-decode-error.js";
import { trimTraceLine } from "./trim-trace-line.js";

const META =
  '"schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host"';
const OP = '"span_id":"s3","op_name":"relu","dtype":"f32","device":"cpu"';

function op(fields: string): string {
  return `{"kind":"op",${OP},${fields}}`;
}

function accepted(line: string): Record<string, unknown> {
  const result = decodeTraceLine(line);
  if (!result.ok) throw new Error(`rejected ${line}: ${result.error.message}`);
  return result.event as unknown as Record<string, unknown>;
}

describe("Appendix B sample lines", () => {
  const cases: [string, Record<string, unknown>][] = [
    [
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"m/update-1","entrypoint":"m::forward","phase":"infer","timestamp":"2025-01-01T00:00:00.000Z","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"device_synchronized","tags":{}}',
      { measured_region_device_synchronized: false, tags: {} },
    ],
    [
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"run-1-0","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"2026-08-04T18:00:00.000Z","capture_step":2,"warmup_steps":1,"device":"cpu","measured_region_device_synchronized":false,"timing_mode":"host","tags":{"10":"a","9":"b","source_revision":"abc123"},"candle_version":"0.8.0"}',
      { candle_version: "0.8.0", tags: { "10": "a", "9": "b", source_revision: "abc123" } },
    ],
    [
      '{"kind":"span_start","id":"root","name":"Model::forward","start_ns":0,"span_kind":"module"}',
      { measured: false, span_kind: "module" },
    ],
    ['{"kind":"span_end","id":"root"}', { duration_ns: 0 }],
    [
      '{"kind":"op","span_id":"s3","op_name":"add","inputs":["t2","t3"],"output":"t4","shape":[32,32],"dtype":"bf16","device":"cuda:0","duration_ns":300,"timestamp_ns":6200,"input_storage_bytes":0}',
      { output: "t4", shape: [32, 32], inputs: ["t2", "t3"] },
    ],
    [
      '{"kind":"op","span_id":"s3","op_name":"relu","dtype":"F32","device":"cpu","duration_ns":10}',
      { inputs: [], shape: [], timestamp_ns: 0, input_storage_bytes: 0 },
    ],
    [
      '{"kind":"tensor","span_id":"s3","tensor_id":"q","shape":[16],"dtype":"f8e4m3","device":"cuda:0"}',
      { requires_grad: false, category: "other" },
    ],
    [
      '{"kind":"tensor","span_id":"s3","tensor_id":"w","shape":[4],"dtype":"f32","device":"cpu","requires_grad":true,"storage_bytes":999,"category":"parameter"}',
      { storage_bytes: 999, category: "parameter", requires_grad: true },
    ],
    [
      '{"kind":"memory","timestamp_ns":10,"tensor_id":"x","span_id":"s2","device":"cpu","bytes":64,"action":"alloc","dtype":"u8"}',
      { shape: [], category: "other" },
    ],
    [
      '{"kind":"device_memory","timestamp_ns":5,"device":"cuda:0","used_bytes":100,"free_bytes":900,"reserved_bytes":256}',
      { reserved_bytes: 256 },
    ],
    ['{"kind":"gradient","event_id":"g0","root":"vb","key":"w","state":"zero","norm":0.0}', { norm: 0 }],
    [
      '{"kind":"gradient","event_id":"g1","root":"vb","key":"w2","state":"non_finite"}',
      { state: "non_finite" },
    ],
    ['{"kind":"gradient","event_id":"g2","root":"vb","key":"w3","state":"present","norm":3}', { norm: 3 }],
    ['{"kind":"edge","from_span":"s3","to_span":"s4","duration_ns":1200}', { duration_ns: 1200 }],
    [
      '{"kind":"span_end","id":"s3","duration_ns":5,"note":"ignored","kind2":1}',
      { id: "s3", duration_ns: 5 },
    ],
    [
      '{"kind":"op","span_id":"s3","op_name":"big","shape":[4294967296,4294967296,2],"dtype":"f64","device":"cpu","duration_ns":1}',
      { shape: [4294967296, 4294967296, 2] },
    ],
  ];
  it.each(cases)("%s", (line, expected) => {
    expect(accepted(line)).toMatchObject(expected);
  });

  it("omits absent optionals and drops unknown keys", () => {
    const event = accepted('{"kind":"span_end","id":"s3","duration_ns":5,"note":"ignored","kind2":1}');
    expect(Object.keys(event)).toEqual(["kind", "id", "duration_ns"]);
    const relu = accepted(op('"duration_ns":10'));
    expect("output" in relu || "storage_bytes" in relu).toBe(false);
  });
});

describe("u64 literals (spec §5)", () => {
  it.each([
    ["-1", "expected u64"],
    ["-0", "expected u64"],
    ["1.5", "expected u64"],
    ["5000.0", "expected u64"],
    ["5e3", "expected u64"],
    ["5E3", "expected u64"],
    ["1e0", "expected u64"],
    ["18446744073709551616", "expected u64"],
    ["99999999999999999999999", "expected u64"],
    ['"10"', "expected u64"],
    ["true", "expected u64"],
    ["[]", "expected u64"],
    ["{}", "expected u64"],
    ["null", "invalid type: null"],
  ])("duration_ns %s is rejected", (literal, phrase) => {
    const result = decodeTraceLine(op(`"duration_ns":${literal}`));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.message).toContain(phrase);
      expect(result.error.message).toContain("op.duration_ns");
      expect(result.error.field).toBe("op.duration_ns");
    }
  });

  it.each([
    ["0", 0],
    ["9007199254740991", 9007199254740991],
    ["9007199254740992", 9007199254740992n],
    ["9007199254740993", 9007199254740993n],
    ["18446744073709551615", 18446744073709551615n],
  ])("duration_ns %s reads exactly", (literal, value) => {
    expect(accepted(op(`"duration_ns":${literal}`)).duration_ns).toBe(value);
  });

  it("checks shape elements as usize and names the index", () => {
    for (const literal of ["-1", "2.0", "2e0", '"2"', "null", "18446744073709551616"]) {
      const result = decodeTraceLine(op(`"duration_ns":1,"shape":[4,${literal}]`));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.field).toBe("op.shape[1]");
      if (!result.ok && literal !== "null") expect(result.error.message).toContain("expected usize");
    }
    expect(accepted(op('"duration_ns":1,"shape":[18446744073709551615,1]')).shape).toEqual([
      18446744073709551615n,
      1,
    ]);
  });

  it("keeps float-form numbers in unknown keys and tags out of u64 checks", () => {
    expect(accepted(op('"duration_ns":1,"x":[1.5,-0,5e3],"y":{"z":-1}')).duration_ns).toBe(1);
  });
});

describe("norm (spec §6.1)", () => {
  const gradient = (norm: string) =>
    `{"kind":"gradient","event_id":"g","root":"vb","key":"w","state":"present","norm":${norm}}`;
  it.each([
    ["3", 3],
    ["-0", -0],
    ["-0.0", -0],
    ["1E-7", 1e-7],
    ["1e-400", 0],
    ["0.42", 0.42],
    ["1e16", 1e16],
    ["1e+16", 1e16],
  ])("%s reads as %s", (literal, value) => {
    expect(Object.is(accepted(gradient(literal)).norm, value)).toBe(true);
  });
  it("null reads as absent", () => {
    expect("norm" in accepted(gradient("null"))).toBe(false);
  });
  it.each(["1e400", "-1e400", "1".repeat(400)])("%s is out of range", (literal) => {
    const result = decodeTraceLine(gradient(literal));
    expect(result.ok ? undefined : result.error.code).toBe("number_out_of_range");
    if (!result.ok) expect(result.error.message).toContain("number out of range");
  });
  it("rejects 1e400 in an unknown key too", () => {
    const result = decodeTraceLine('{"kind":"span_end","id":"s","x":[1e400]}');
    expect(result.ok ? undefined : result.error.code).toBe("number_out_of_range");
  });
  it("rejects a string norm", () => {
    expect(decodeTraceLine(gradient('"0.5"')).ok).toBe(false);
  });
});

describe("null, defaults and required keys (spec §2.1)", () => {
  it.each(["parent_id", "step"])("span_start %s: null reads as absent", (key) => {
    const event = accepted(
      `{"kind":"span_start","id":"a","name":"n","start_ns":0,"span_kind":"op","${key}":null}`,
    );
    expect(key in event).toBe(false);
  });
  it.each([
    [op('"duration_ns":1,"output":null,"storage_bytes":null'), ["output", "storage_bytes"]],
    [
      '{"kind":"memory","timestamp_ns":1,"tensor_id":"t","span_id":"s","op_name":null,"device":"d","bytes":1,"action":"free","dtype":"u8"}',
      ["op_name"],
    ],
    [
      '{"kind":"device_memory","timestamp_ns":1,"device":"d","used_bytes":1,"free_bytes":1,"reserved_bytes":null}',
      ["reserved_bytes"],
    ],
    [`{"kind":"meta",${META},"tags":{},"candle_version":null}`, ["candle_version"]],
  ])("%s: null optionals are absent", (line, keys) => {
    const event = accepted(line);
    for (const key of keys) expect(key in event).toBe(false);
  });
  it.each([
    [op('"duration_ns":1,"shape":null'), "op.shape"],
    [op('"duration_ns":1,"inputs":null'), "op.inputs"],
    [op('"duration_ns":1,"timestamp_ns":null'), "op.timestamp_ns"],
    [
      '{"kind":"span_start","id":"a","name":"n","start_ns":0,"span_kind":"op","measured":null}',
      "span_start.measured",
    ],
    ['{"kind":"span_end","id":"a","duration_ns":null}', "span_end.duration_ns"],
    [`{"kind":"meta",${META},"tags":null}`, "meta.tags"],
    [
      `{"kind":"meta",${META},"tags":{},"measured_region_device_synchronized":null}`,
      "meta.measured_region_device_synchronized",
    ],
    [
      '{"kind":"tensor","span_id":"s","tensor_id":"t","dtype":"f32","device":"d","category":null}',
      "tensor.category",
    ],
    ['{"kind":"edge","from_span":null,"to_span":"b","duration_ns":1}', "edge.from_span"],
  ])("%s: null is rejected", (line, field) => {
    const result = decodeTraceLine(line);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("invalid_type");
      expect(result.error.message).toContain("invalid type: null");
      expect(result.error.field).toBe(field);
    }
  });
  it.each([
    ['{"id":"a"}', "missing_field", "missing field `kind`"],
    [
      '{"kind":"gradient","event_id":"g","root":"vb","param_key":"w","state":"zero"}',
      "missing_field",
      "missing field `key`",
    ],
    [`{"kind":"meta",${META}}`, "missing_field", "missing field `tags`"],
    ['{"kind":"terminal"}', "unknown_variant", "unknown variant `terminal`"],
    ['{"kind":"function","id":"a"}', "unknown_variant", "unknown variant `function`"],
    [
      '{"kind":"span_start","id":"a","name":"n","start_ns":0,"span_kind":"Function"}',
      "unknown_variant",
      "unknown variant `Function`",
    ],
    [
      '{"kind":"span_start","id":"a","name":"n","start_ns":0,"span_kind":"op","step":"FORWARD"}',
      "unknown_variant",
      "unknown variant `FORWARD`",
    ],
    [
      '{"kind":"memory","timestamp_ns":1,"tensor_id":"t","span_id":"s","device":"d","bytes":1,"action":"Alloc","dtype":"u8"}',
      "unknown_variant",
      "unknown variant `Alloc`",
    ],
    ['{"kind":5}', "invalid_type", "invalid type"],
    ['{"kind":"span_end","id":7}', "invalid_type", "invalid type: integer `7`, expected a string"],
    [`{"kind":"meta",${META},"tags":{"batch":128}}`, "invalid_type", "invalid type: integer `128`"],
    [`{"kind":"meta",${META},"tags":[]}`, "invalid_type", "invalid type"],
    ['["span_end","s3",5]', "invalid_type", "invalid type: sequence"],
    ["null", "invalid_type", "invalid type: null"],
    ['"span_end"', "invalid_type", "invalid type"],
    ["not json", "invalid_json", "invalid JSON"],
    ['{"kind":"span_end","id":"a"} {}', "invalid_json", "invalid JSON"],
    ['{"kind":"span_end","id":"a"},', "invalid_json", "invalid JSON"],
    ['{"kind":"span_end","id":"a"', "invalid_json", "invalid JSON"],
    ['\uFEFF{"kind":"span_end","id":"a"}', "invalid_json", "invalid JSON"],
    ['{"kind":"span_end","id":"\\ud800"}', "invalid_json", "surrogate"],
    ['{"kind":"span_end","id":"\\udc00x"}', "invalid_json", "surrogate"],
    ['{"kind":"span_end","id":"\\ud800\\u0041"}', "invalid_json", "surrogate"],
    ['{"kind":"span_end","id":"a","id":"b"}', "duplicate_field", "duplicate field `id`"],
    ['{"kind":"span_end","kind":"span_end","id":"a"}', "duplicate_field", "duplicate field `kind`"],
    [
      '{"kind":"span_end","id":"a","duration_ns":1,"x":1,"duration_ns":2}',
      "duplicate_field",
      "duplicate field `duration_ns`",
    ],
    [
      '{"kind":"span_end","id":"a","d\\u0075ration_ns":1,"duration_ns":2}',
      "duplicate_field",
      "duplicate field `duration_ns`",
    ],
    [
      `{"kind":"span_end","id":"a","x":${"[".repeat(130)}${"]".repeat(130)}}`,
      "invalid_json",
      "recursion limit",
    ],
  ] as [string, LineErrorCode, string][])("%s → %s", (line, code, phrase) => {
    const result = decodeTraceLine(line);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe(code);
      expect(result.error.message).toContain(phrase);
    }
  });
  it("names the tag in a bad tag value", () => {
    const result = decodeTraceLine(`{"kind":"meta",${META},"tags":{"batch":128}}`);
    expect(result.ok ? undefined : result.error.field).toBe("meta.tags.batch");
  });
});

describe("strings, tags and unknown keys", () => {
  it("accepts paired surrogate escapes and any string content", () => {
    expect(accepted('{"kind":"span_end","id":"\\ud83d\\ude00\\n\\"x"}').id).toBe('😀\n"x');
    expect(accepted('{"kind":"span_end","id":""}').id).toBe("");
  });
  it("keeps the last of repeated tag keys", () => {
    const event = accepted(`{"kind":"meta",${META},"tags":{"a":"1","a":"2"}}`);
    expect(event.tags).toEqual({ a: "2" });
  });
  it("keeps __proto__ and constructor tags as plain data without pollution", () => {
    const event = accepted(
      `{"kind":"meta",${META},"tags":{"__proto__":"x","constructor":"y","toString":"z"}}`,
    );
    const tags = event.tags as Record<string, string>;
    expect(Object.keys(tags).sort()).toEqual(["__proto__", "constructor", "toString"]);
    expect(Object.getOwnPropertyDescriptor(tags, "__proto__")?.value).toBe("x");
    expect(tags.constructor).toBe("y");
    expect(Object.getPrototypeOf(tags)).toBe(null);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    const bare = accepted(`{"kind":"meta",${META},"tags":{}}`).tags as Record<string, string>;
    expect(bare.constructor).toBeUndefined();
  });
  it("ignores unknown keys of any value, including __proto__", () => {
    const event = accepted('{"__proto__":{"polluted":1},"kind":"span_end","id":"a","z":null,"w":[{"a":[]}]}');
    expect(event).toEqual({ kind: "span_end", id: "a", duration_ns: 0 });
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it("accepts keys in any order and whitespace between tokens", () => {
    expect(accepted('{ "id" : "a" ,\t"duration_ns" :\r 7 , "kind" : "span_end" }')).toEqual({
      kind: "span_end",
      id: "a",
      duration_ns: 7,
    });
  });
});

describe("trimTraceLine (spec §4.2)", () => {
  it.each([
    ["\t\u000b\f\r \u0085\u00a0{}\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000", "{}"],
    ["{}", "{}"],
    ["   ", ""],
    ["", ""],
    ["\uFEFF{}", "\uFEFF{}"],
    ["{}\uFEFF", "{}\uFEFF"],
    ["\u200b{}", "\u200b{}"],
  ])("%j → %j", (line, trimmed) => {
    expect(trimTraceLine(line)).toBe(trimmed);
  });
});

describe("compact-text tier soundness", () => {
  /** Pads `line` with spaces after `{` until it is exactly as long as its compact re-serialization. */
  function padToCompactLength(line: string, compact: string): string {
    const missing = compact.length - line.length;
    expect(missing).toBeGreaterThanOrEqual(0);
    return `{${" ".repeat(missing)}${line.slice(1)}`;
  }

  it("rejects exponent u64 literals that are as short as the digits", () => {
    for (const literal of ["12e2", "1e2", "5E3"]) {
      const result = decodeTraceLine(`{"kind":"span_end","id":"a","duration_ns":${literal}}`);
      expect(result.ok ? undefined : result.error.code).toBe("expected_u64");
    }
  });

  it("does not let a short exponent literal hide whitespace or a float-form u64", () => {
    const compact = '{"kind":"span_end","id":"a","duration_ns":1000000000000000}';
    const line = padToCompactLength('{"kind":"span_end","id":"a","duration_ns":1e15}', compact);
    expect(line.length).toBe(compact.length);
    expect(decodeTraceLine(line).ok).toBe(false);
  });

  it("does not let a short exponent norm hide a repeated key", () => {
    const compact =
      '{"kind":"gradient","event_id":"g","root":"r","key":"k","state":"zero","norm":100000000000000000000}';
    for (const norm of ["1e20", "1E20", "1e+20"]) {
      const line = padToCompactLength(
        `{"kind":"gradient","event_id":"g","root":"r","key":"k","key":"k","state":"zero","norm":${norm}}`,
        compact,
      );
      const result = decodeTraceLine(line);
      expect(result.ok ? undefined : result.error.code).toBe("duplicate_field");
    }
  });

  it("does not let a short exponent norm hide an escaped lone surrogate", () => {
    const compact =
      '{"kind":"gradient","event_id":"g","root":"r","key":"x","state":"zero","norm":100000000000000000000}';
    const line = padToCompactLength(
      '{"kind":"gradient","event_id":"g","root":"r","key":"\\ud800","state":"zero","norm":1e20}',
      compact,
    );
    const result = decodeTraceLine(line);
    expect(result.ok ? undefined : result.error.message).toContain("surrogate");
  });

  it("decodes escapes exactly", () => {
    expect(accepted('{"kind":"span_end","id":"a\\nb\\u00e9\\/"}').id).toBe("a\nbé/");
  });

  it("accepts norms in exponent form", () => {
    for (const [literal, value] of [
      ["1e20", 1e20],
      ["1e-3", 0.001],
      ["2.5e-8", 2.5e-8],
      ["1e6", 1e6],
    ] as const) {
      const result = decodeTraceLine(
        `{"kind":"gradient","event_id":"g","root":"r","key":"k","state":"zero","norm":${literal}}`,
      );
      expect(result.ok && result.event.kind === "gradient" ? result.event.norm : undefined).toBe(value);
    }
  });

  const base = [
    op('"duration_ns":1200,"timestamp_ns":5000,"shape":[32,32],"inputs":["a","b"],"storage_bytes":4096'),
    '{"kind":"span_start","id":"s2","parent_id":"s1","name":"n","start_ns":1000,"span_kind":"function","measured":true}',
    `{"kind":"meta",${META},"tags":{"a":"1"}}`,
    '{"kind":"gradient","event_id":"g","root":"vb","key":"w","state":"present","norm":0.5}',
  ];
  // Edits that keep JSON valid: whitespace, a repeated key, a number re-spelled.
  const edit = fc.oneof(
    fc.record({ type: fc.constant("space" as const), at: fc.nat(), text: fc.constantFrom(" ", "\t", "  ") }),
    fc.record({
      type: fc.constant("duplicate" as const),
      at: fc.nat(),
      text: fc.constantFrom('"id":"x",', '"duration_ns":5,', '"kind":"op",'),
    }),
    fc.record({
      type: fc.constant("number" as const),
      at: fc.nat(),
      text: fc.constantFrom("1200.0", "12e2", "1.2e3", "-0", "1200", "0012"),
    }),
  );
  it("gives the same verdict as strict decoding for perturbed lines", () => {
    fc.assert(
      fc.property(fc.constantFrom(...base), fc.array(edit, { minLength: 1, maxLength: 3 }), (line, edits) => {
        let text = line;
        let mustFail = false;
        for (const change of edits) {
          if (change.type === "space") {
            // Only between tokens: after a structural character outside strings.
            const spots = [...text.matchAll(/[:,{[]/g)]
              .map((match) => (match.index ?? 0) + 1)
              .filter((spot) => isOutsideString(text, spot));
            const spot = spots[change.at % spots.length];
            if (spot !== undefined) text = text.slice(0, spot) + change.text + text.slice(spot);
          } else if (change.type === "duplicate") {
            // Only a repeated KNOWN key is an error (spec §2.1); a repeated unknown key is ignored.
            const key = change.text.slice(0, change.text.indexOf(":"));
            const kind = (JSON.parse(line) as { kind: keyof typeof EVENT_LAYOUTS }).kind;
            const known = EVENT_LAYOUTS[kind].fields.some((field) => `"${field.key}"` === key);
            if (text.includes(`${key}:`) && (known || key === '"kind"')) mustFail = true;
            text = `{${change.text}${text.slice(1)}`;
          } else if (text.includes('"duration_ns":1200')) {
            text = text.replace('"duration_ns":1200', `"duration_ns":${change.text}`);
            if (change.text !== "1200") mustFail = true;
          }
        }
        const valid = (() => {
          try {
            JSON.parse(text);
            return true;
          } catch {
            return false;
          }
        })();
        const result = decodeTraceLine(text);
        if (!valid || mustFail) expect(result.ok, text).toBe(false);
        else expect(result.ok, text).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });
});

function isOutsideString(text: string, position: number): boolean {
  let inString = false;
  for (let index = 0; index < position; index++) {
    const char = text[index];
    if (char === "\\" && inString) index++;
    else if (char === '"') inString = !inString;
  }
  return !inString;
}

describe("robustness", () => {
  const golden =
    '{"kind":"op","span_id":"s3","op_name":"matmul","inputs":["t0","t1"],"output":"t2","shape":[32,32],"dtype":"f32","device":"cuda:0","duration_ns":1200,"timestamp_ns":5000,"storage_bytes":4096,"input_storage_bytes":8192}';
  it("never throws, whatever the input", () => {
    const mutated = fc
      .tuple(fc.nat(), fc.nat({ max: 4 }), fc.string({ maxLength: 4, unit: "binary" }))
      .map(([at, remove, insert]) => {
        const position = at % (golden.length + 1);
        return golden.slice(0, position) + insert + golden.slice(position + remove);
      });
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.json(), mutated), (line) => {
        const result = decodeTraceLine(line);
        if (!result.ok) {
          expect(typeof result.error.message).toBe("string");
          expect(result.error.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
