// Reader edge cases of spec §4 (framing), §5 (integers), §6 (floats) and §8 (errors), fed to
// parseTraceText and readTraceEvents as bytes so that the decoder, not JavaScript, sees them.
import { parseTraceText } from "@cg/parser";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bytes,
  concatBytes,
  jsonl,
  META,
  parseError,
  ROOT_END,
  ROOT_START,
  readAll,
  withBody,
} from "./helpers.ts";

const GRAD = (norm: string) =>
  `{"kind":"gradient","event_id":"g","root":"vb","key":"w","state":"present","norm":${norm}}`;
const SPAN_END_DURATION = (value: string) => `{"kind":"span_end","id":"s1","duration_ns":${value}}`;

describe("§4.1 encoding", () => {
  it("rejects a leading BOM at line 1 (bytes and text)", () => {
    const body = withBody();
    const fromBytes = parseError(concatBytes(new Uint8Array([0xef, 0xbb, 0xbf]), bytes(body)));
    expect(fromBytes).toMatchObject({ stage: "line", line: 1, code: "invalid_json" });
    expect(fromBytes.message).toContain("invalid JSON");
    const fromText = parseError(`\uFEFF${body}`);
    expect(fromText).toMatchObject({ stage: "line", line: 1, code: "invalid_json" });
  });

  it("rejects a BOM at the start of a later line at that line", () => {
    expect(parseError(jsonl(META, `\uFEFF${ROOT_START}`, ROOT_END))).toMatchObject({
      line: 2,
      code: "invalid_json",
    });
  });

  const badSequences: [string, number[]][] = [
    ["lone continuation byte", [0x80]],
    ["0xFF", [0xff]],
    ["overlong NUL (C0 80)", [0xc0, 0x80]],
    ["UTF-8 encoded surrogate (ED A0 80)", [0xed, 0xa0, 0x80]],
    ["truncated 3-byte sequence", [0xe2, 0x82]],
    ["code point above U+10FFFF (F4 90 80 80)", [0xf4, 0x90, 0x80, 0x80]],
  ];
  it.each(badSequences)(
    "rejects invalid UTF-8 (%s) at its physical line, not earlier or later",
    (_name, seq) => {
      // line 1 meta, line 2 blank, line 3 root start, line 4 op with the bad bytes inside a string
      const before = bytes(`${META}\n\n${ROOT_START}\n{"kind":"op","span_id":"s1","op_name":"a`);
      const after = bytes(`b","dtype":"f32","device":"cpu","duration_ns":1}\n${ROOT_END}\n`);
      const error = parseError(concatBytes(before, new Uint8Array(seq), after));
      expect(error).toMatchObject({ stage: "line", line: 4, code: "invalid_utf8" });
      expect(error.message).toContain("invalid UTF-8");
    },
  );

  it("rejects a final line that ends inside a multi-byte sequence (no LF) at that line", () => {
    const input = concatBytes(
      bytes(`${META}\n${ROOT_START}\n${ROOT_END}\n{"kind":"edge","from_span":"s1","to_span":"`),
      new Uint8Array([0xe2, 0x82]),
    );
    expect(parseError(input)).toMatchObject({ line: 4, code: "invalid_utf8" });
  });

  it("keeps valid multi-byte content (2, 3 and 4 byte sequences) intact", () => {
    const name = "é€😀～\u007f";
    const doc = parseTraceText(
      bytes(jsonl(META, ROOT_START.replace('"root"', JSON.stringify(name)), ROOT_END)),
    );
    expect(doc.spans[0]?.name).toBe(name);
  });
});

describe("§4.2 splitting and trimming", () => {
  it("treats CRLF as a line terminator", () => {
    const doc = parseTraceText(bytes(`${META}\r\n${ROOT_START}\r\n${ROOT_END}\r\n`));
    expect(doc.spans).toHaveLength(1);
  });

  it("does not split on a lone CR; a CR between tokens is JSON whitespace", () => {
    const spaced = ROOT_START.replace(',"name"', ',\r"name"');
    const doc = parseTraceText(bytes(jsonl(META, spaced, ROOT_END)));
    expect(doc.spans[0]?.name).toBe("root");
    // A lone CR must not create a line: an error on the next line keeps its physical number.
    expect(parseError(bytes(jsonl(META, spaced, "not json")))).toMatchObject({
      line: 3,
      code: "invalid_json",
    });
  });

  it("rejects a raw CR inside a string (control character) on that line", () => {
    const bad = ROOT_START.replace('"root"', '"ro\rot"');
    expect(parseError(bytes(jsonl(META, bad, ROOT_END)))).toMatchObject({ line: 2, code: "invalid_json" });
  });

  it("does not split on U+2028 / U+2029: inside a string they stay part of the value", () => {
    const name = "a\u2028b\u2029c";
    const doc = parseTraceText(
      bytes(jsonl(META, ROOT_START.replace('"root"', JSON.stringify(name)), ROOT_END)),
    );
    expect(doc.spans[0]?.name).toBe(name);
    // Between tokens U+2028 is not JSON whitespace (and not a line break): invalid JSON on line 2.
    const between = ROOT_START.replace(',"name"', ',\u2028"name"');
    expect(parseError(bytes(jsonl(META, between, ROOT_END)))).toMatchObject({
      line: 2,
      code: "invalid_json",
    });
  });

  const trimmed = [
    "\u0009",
    "\u000b",
    "\u000c",
    "\r",
    " ",
    "\u0085",
    "\u00a0",
    "\u1680",
    "\u2000",
    "\u200a",
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
  ];
  it.each(trimmed.map((ch) => [ch.codePointAt(0)?.toString(16).padStart(4, "0"), ch]))(
    "trims U+%s at both ends",
    (_hex, ch) => {
      const doc = parseTraceText(bytes(jsonl(`${ch}${META}${ch}`, `${ch}${ch}${ROOT_START}${ch}`, ROOT_END)));
      expect(doc.spans).toHaveLength(1);
    },
  );

  const notTrimmed = ["\ufeff", "\u200b", "\u180e", "\u2060", "\u0000"];
  it.each(notTrimmed.map((ch) => [ch.codePointAt(0)?.toString(16).padStart(4, "0"), ch]))(
    "does not trim U+%s (line error on that line)",
    (_hex, ch) => {
      expect(parseError(bytes(jsonl(META, `${ROOT_START}${ch}`, ROOT_END)))).toMatchObject({
        stage: "line",
        line: 2,
      });
      expect(parseError(bytes(jsonl(META, ROOT_START, `${ch}${ROOT_END}`)))).toMatchObject({
        stage: "line",
        line: 3,
      });
    },
  );

  it("skips lines made only of White_Space (incl. U+0085) but counts them as physical lines", () => {
    const input = jsonl(META, "", " \t", "\u0085\u3000", ROOT_START, "\r", "not json");
    expect(parseError(bytes(input))).toMatchObject({ line: 7, code: "invalid_json" });
  });

  it("reports structural errors with the event index (blank lines excluded) and the physical line", () => {
    const input = jsonl(META, "", ROOT_START, "", "", ROOT_START, ROOT_END);
    const error = parseError(bytes(input));
    expect(error).toMatchObject({ stage: "stream", code: "duplicate_span_start", index: 2, line: 6 });
    expect(error.message).toContain("duplicate span_start id `s1` at index 2");
  });

  it("readTraceEvents yields physical lines and event indexes, then throws at the defect", async () => {
    const input = jsonl(META, "", ROOT_START, "  ", '{"kind":"span_end","id":"nope"}', ROOT_END);
    const { events, error } = await readAll(bytes(input));
    expect(events).toEqual([
      { kind: "meta", line: 1, index: 0 },
      { kind: "span_start", line: 3, index: 1 },
    ]);
    expect(error?.code).toBe("unknown_span_end");
    expect(error?.index).toBe(2);
    expect(error?.line).toBe(5);
    expect(error?.message).toContain("span_end for unknown span `nope` at index 2");
  });

  it("a final line without LF is read like any other; strict rejects an incomplete one, lenient drops it", () => {
    const complete = `${META}\n${ROOT_START}\n${ROOT_END}`;
    expect(parseTraceText(bytes(complete)).spans[0]?.closed).toBe(true);
    const truncated = `${META}\n${ROOT_START}\n${ROOT_END}\n{"kind":"op","span_id":"s1","op_na`;
    expect(parseError(bytes(truncated))).toMatchObject({ stage: "line", line: 4, code: "invalid_json" });
    const lenient = parseTraceText(bytes(truncated), { mode: "lenient" });
    expect(lenient.ops).toHaveLength(0);
    expect(lenient.spans[0]?.closed).toBe(true);
    expect(lenient.diagnostics?.map((d) => [d.code, d.line])).toEqual([["truncated", 4]]);
  });

  it("an incomplete line that does end with LF is an ordinary line error, also in lenient mode", () => {
    const input = `${META}\n${ROOT_START}\n{"kind":"op"\n${ROOT_END}\n`;
    expect(parseError(bytes(input))).toMatchObject({ line: 3, code: "invalid_json" });
    const lenient = parseTraceText(bytes(input), { mode: "lenient" });
    expect(lenient.diagnostics?.map((d) => d.code)).not.toContain("truncated");
  });

  it("rejects trailing content after the object", () => {
    for (const tail of [" {}", ",", " x", "}", " null"]) {
      expect(parseError(bytes(jsonl(META, `${ROOT_START}${tail}`, ROOT_END)))).toMatchObject({
        line: 2,
        code: "invalid_json",
      });
    }
  });

  it("any chunking of the byte stream yields the same events (CRLF and multi-byte split across chunks)", async () => {
    const input = bytes(
      `${META}\r\n\r\n${ROOT_START.replace('"root"', '"é😀\u2028x"')}\r\n \u0085\r\n${GRAD("1e-7")}\r\n${ROOT_END}`,
    );
    const whole = await readAll([input]);
    expect(whole.error).toBeUndefined();
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: input.length - 1 }), { maxLength: 12 }),
        async (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), input.length];
          const chunks = points.slice(1).map((end, i) => input.slice(points[i], end));
          const result = await readAll(chunks);
          expect(result.error).toBeUndefined();
          expect(result.events).toEqual(whole.events);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("invalid UTF-8 split across chunks is still pinned to its line", async () => {
    const input = concatBytes(
      bytes(`${META}\n\n${ROOT_START}\n{"kind":"edge","from_span":"\u00e9`),
      new Uint8Array([0xe2, 0x28]),
      bytes(`","to_span":"s1","duration_ns":1}\n${ROOT_END}\n`),
    );
    for (let cut = 1; cut < input.length; cut += 7) {
      const { error } = await readAll([input.slice(0, cut), input.slice(cut)]);
      expect(error?.code).toBe("invalid_utf8");
      expect(error?.line).toBe(4);
    }
  });
});

describe("§8.1 error precedence", () => {
  // The reference reports any line error over any structural error; a single-pass reader MAY
  // stop at the first defect in file order. Either way the file MUST be rejected.
  it("a file with a structural error followed by a line error is rejected with one of the two", () => {
    const error = parseError(bytes(jsonl(META, ROOT_START, ROOT_START, "not json")));
    expect([
      ["line", 4],
      ["stream", 3],
    ]).toContainEqual([error.stage, error.line]);
  });

  it("a walk error after an unsupported schema: rejected (schema at meta or the walk error)", () => {
    const meta5 = META.replace("trace/6", "trace/5");
    const error = parseError(bytes(jsonl(meta5, ROOT_START, '{"kind":"span_end","id":"zz"}')));
    expect(["unsupported_schema", "unknown_span_end"]).toContain(error.code);
  });

  it("missing meta with no other defect is reported without a line", () => {
    const error = parseError(bytes(jsonl()));
    expect(error.code).toBe("missing_meta");
    expect(error.message).toContain("trace stream is missing a meta event with run metadata");
  });

  it("empty input and whitespace-only input are missing meta", () => {
    expect(parseError(new Uint8Array(0)).code).toBe("missing_meta");
    expect(parseError(bytes("\n \n\r\n")).code).toBe("missing_meta");
  });

  it("unsupported schema message quotes both strings with escapes", () => {
    const error = parseError(
      bytes(jsonl(META.replace("candle-graph/trace/6", 'x\\"y\\\\z'), ROOT_START, ROOT_END)),
    );
    expect(error.code).toBe("unsupported_schema");
    expect(error.message).toContain('unsupported trace schema "x\\"y\\\\z"; expected "candle-graph/trace/6"');
  });
});

describe("§2.1 keys: duplicates, unknown keys, null, array form", () => {
  it("rejects a repeated top-level key, also when spelled with an escape", () => {
    for (const line of [
      '{"kind":"span_end","id":"s1","id":"s1"}',
      '{"kind":"span_end","id":"s1","\\u0069d":"s1"}',
      '{"kind":"span_end","kind":"span_end","id":"s1"}',
      '{"kind":"span_end","id":"s1","duration_ns":1,"duration_ns":1}',
    ]) {
      const error = parseError(bytes(jsonl(META, ROOT_START, line)));
      expect(error).toMatchObject({ stage: "line", line: 3, code: "duplicate_field" });
      expect(error.message).toMatch(/duplicate field `(id|kind|duration_ns)`/);
    }
  });

  it("inside tags a repeated key is not an error; the last value wins (also with escaped keys)", () => {
    const meta = META.replace('"tags":{}', '"tags":{"a":"1","b":"x","a":"2","\\u0062":"y"}');
    const doc = parseTraceText(bytes(withBody().replace(META, meta)));
    expect({ ...doc.run.tags }).toEqual({ a: "2", b: "y" });
  });

  it("recognises an escaped `kind` key", () => {
    const doc = parseTraceText(
      bytes(jsonl(META, ROOT_START, '{"\\u006bind":"span_end","id":"s1","duration_ns":7}')),
    );
    expect(doc.spans[0]?.duration_ns).toBe(7);
  });

  it("ignores unknown keys with nested objects, arrays and nulls, and trace/7 keys", () => {
    const end =
      '{"x":{"a":[1,{"b":null,"c":[[],{}]}],"kind":"meta"},"kind":"span_end","id":"s1","duration_ns":5,"y":null,"z":[true,false,-1.5e3],"host_duration_ns":9}';
    const doc = parseTraceText(bytes(jsonl(META, ROOT_START, end)));
    expect(doc.spans[0]?.duration_ns).toBe(5);
  });

  it("rejects an array-form line (Q9) and other non-object lines as invalid type", () => {
    for (const line of ['["span_end","s1",5]', "42", '"span_end"', "null", "true", "[]"]) {
      const error = parseError(bytes(jsonl(META, ROOT_START, line)));
      expect(error).toMatchObject({ stage: "line", line: 3 });
      expect(error.message).toContain("invalid type");
    }
  });

  const nullableAbsent: [string, string][] = [
    [
      "parent_id",
      '{"kind":"span_start","id":"s1","parent_id":null,"name":"r","start_ns":0,"span_kind":"function","measured":true,"step":null}',
    ],
    [
      "output/storage_bytes",
      '{"kind":"op","span_id":"s1","op_name":"m","output":null,"shape":[2],"dtype":"f32","device":"cpu","duration_ns":1,"storage_bytes":null}',
    ],
    [
      "op_name",
      '{"kind":"memory","timestamp_ns":1,"tensor_id":"t","span_id":"s1","op_name":null,"device":"cpu","bytes":1,"action":"alloc","dtype":"u8"}',
    ],
    [
      "reserved_bytes",
      '{"kind":"device_memory","timestamp_ns":1,"device":"cpu","used_bytes":1,"free_bytes":1,"reserved_bytes":null}',
    ],
    ["norm", GRAD("null")],
  ];
  it.each(nullableAbsent)("reads null as absent for %s", (_key, line) => {
    const meta = META.replace('"tags":{}', '"tags":{},"candle_version":null');
    const input = line.includes('"span_start"')
      ? jsonl(meta, line, ROOT_END)
      : jsonl(meta, ROOT_START, line, ROOT_END);
    const doc = parseTraceText(bytes(input));
    expect("candle_version" in doc.run).toBe(false);
    const everything = [
      ...doc.spans,
      ...doc.ops,
      ...doc.memory,
      ...doc.device_memory,
      ...doc.gradients,
    ] as object[];
    for (const record of everything) for (const value of Object.values(record)) expect(value).not.toBeNull();
    if (line.includes('"op"')) {
      expect(doc.ops[0]?.storage_bytes).toBe(8);
      expect(doc.ops[0]).not.toHaveProperty("output");
    }
    if (line.includes('"span_start"')) {
      expect(doc.spans[0]).not.toHaveProperty("parent_id");
      expect(doc.spans[0]).not.toHaveProperty("step");
    }
    if (line.includes('"gradient"')) expect(doc.gradients[0]).not.toHaveProperty("norm");
    if (line.includes('"memory"')) expect(doc.memory[0]).not.toHaveProperty("op_name");
    if (line.includes('"device_memory"')) expect(doc.device_memory[0]).not.toHaveProperty("reserved_bytes");
  });

  const nullRejected: [string, string][] = [
    [
      "shape",
      '{"kind":"op","span_id":"s1","op_name":"m","shape":null,"dtype":"f32","device":"cpu","duration_ns":1}',
    ],
    [
      "inputs",
      '{"kind":"op","span_id":"s1","op_name":"m","inputs":null,"dtype":"f32","device":"cpu","duration_ns":1}',
    ],
    [
      "timestamp_ns (defaulted)",
      '{"kind":"op","span_id":"s1","op_name":"m","dtype":"f32","device":"cpu","duration_ns":1,"timestamp_ns":null}',
    ],
    [
      "input_storage_bytes",
      '{"kind":"op","span_id":"s1","op_name":"m","dtype":"f32","device":"cpu","duration_ns":1,"input_storage_bytes":null}',
    ],
    ["duration_ns of span_end", '{"kind":"span_end","id":"s1","duration_ns":null}'],
    [
      "requires_grad",
      '{"kind":"tensor","span_id":"s1","tensor_id":"t","dtype":"f32","device":"cpu","requires_grad":null}',
    ],
    [
      "category",
      '{"kind":"tensor","span_id":"s1","tensor_id":"t","dtype":"f32","device":"cpu","category":null}',
    ],
    [
      "op.op_name (required)",
      '{"kind":"op","span_id":"s1","op_name":null,"dtype":"f32","device":"cpu","duration_ns":1}',
    ],
    ["edge.duration_ns", '{"kind":"edge","from_span":"s1","to_span":"s1","duration_ns":null}'],
    ["kind", '{"kind":null,"id":"s1"}'],
  ];
  it.each(nullRejected)("rejects null for %s", (_key, line) => {
    const error = parseError(bytes(jsonl(META, ROOT_START, line, ROOT_END)));
    expect(error).toMatchObject({ stage: "line", line: 3 });
    expect(error.message).toContain("invalid type: null");
  });

  it("rejects null for meta keys with a default and for tags", () => {
    for (const replace of ['"measured_region_device_synchronized":null', '"tags":null']) {
      const meta = replace.startsWith('"tags"')
        ? META.replace('"tags":{}', replace)
        : META.replace('"measured_region_device_synchronized":false', replace);
      expect(parseError(bytes(jsonl(meta, ROOT_START, ROOT_END)))).toMatchObject({ line: 1 });
    }
  });
});

describe("§5 integers", () => {
  it("keeps 2^64-1 exactly and rejects 2^64", () => {
    const doc = parseTraceText(bytes(jsonl(META, ROOT_START, SPAN_END_DURATION("18446744073709551615"))));
    expect(doc.spans[0]?.duration_ns).toBe(18446744073709551615n);
    const error = parseError(bytes(jsonl(META, ROOT_START, SPAN_END_DURATION("18446744073709551616"))));
    expect(error).toMatchObject({ stage: "line", line: 3 });
    expect(error.message).toContain("expected u64");
  });

  it("keeps 2^53+1 exactly in every u64 field kind and shape dims", () => {
    const big = "9007199254740993";
    const doc = parseTraceText(
      bytes(
        withBody(
          `{"kind":"op","span_id":"s1","op_name":"m","shape":[${big},1],"dtype":"u8","device":"cpu","duration_ns":${big},"timestamp_ns":${big},"input_storage_bytes":${big}}`,
          `{"kind":"memory","timestamp_ns":${big},"tensor_id":"t","span_id":"s1","device":"cpu","bytes":${big},"action":"alloc","dtype":"u8"}`,
          `{"kind":"device_memory","timestamp_ns":1,"device":"cpu","used_bytes":${big},"free_bytes":${big},"reserved_bytes":${big}}`,
        ),
      ),
    );
    const op = doc.ops[0];
    expect(op?.shape[0]).toBe(9007199254740993n);
    expect(op?.duration_ns).toBe(9007199254740993n);
    expect(op?.timestamp_ns).toBe(9007199254740993n);
    expect(op?.input_storage_bytes).toBe(9007199254740993n);
    expect(op?.storage_bytes).toBe(9007199254740993n);
    expect(doc.memory[0]?.bytes).toBe(9007199254740993n);
    expect(doc.device_memory[0]?.reserved_bytes).toBe(9007199254740993n);
  });

  const badU64 = [
    "-1",
    "-0",
    "1.5",
    "5000.0",
    "5e3",
    "5E3",
    "1e0",
    "0e0",
    "007",
    "+1",
    "00",
    '"10"',
    "true",
    "[]",
    "{}",
    "0.0",
    "-0.0",
    "1.0e3",
  ];
  it.each(badU64)("rejects %s for a u64 field and for a shape element", (literal) => {
    const error = parseError(bytes(jsonl(META, ROOT_START, SPAN_END_DURATION(literal))));
    expect(error).toMatchObject({ stage: "line", line: 3 });
    const shapeError = parseError(
      bytes(
        jsonl(
          META,
          ROOT_START,
          `{"kind":"op","span_id":"s1","op_name":"m","shape":[1,${literal}],"dtype":"f32","device":"cpu","duration_ns":1}`,
        ),
      ),
    );
    expect(shapeError).toMatchObject({ stage: "line", line: 3 });
  });

  it("uses the spec's cause phrases for u64 and usize", () => {
    expect(parseError(bytes(jsonl(META, ROOT_START, SPAN_END_DURATION("5e3")))).message).toContain(
      "expected u64",
    );
    const shape = parseError(
      bytes(
        jsonl(
          META,
          ROOT_START,
          '{"kind":"op","span_id":"s1","op_name":"m","shape":[-1],"dtype":"f32","device":"cpu","duration_ns":1}',
        ),
      ),
    );
    expect(shape.message).toContain("expected usize");
  });

  it("accepts 0 and large exact values for u64 fields", () => {
    for (const literal of ["0", "1", "9007199254740991", "9007199254740992", "10000000000000000000"]) {
      const doc = parseTraceText(bytes(jsonl(META, ROOT_START, SPAN_END_DURATION(literal))));
      expect(BigInt(doc.spans[0]?.duration_ns ?? -1)).toBe(BigInt(literal));
    }
  });
});

describe("§6.1 norm", () => {
  const accepted: [string, number][] = [
    ["3", 3],
    ["-0", -0],
    ["5000.0", 5000],
    ["5e3", 5000],
    ["1E-7", 1e-7],
    ["1e-400", 0],
    ["-1e-400", -0],
    ["18446744073709551616", 2 ** 64],
    ["1.7976931348623157e308", 1.7976931348623157e308],
    ["0.42", 0.42],
  ];
  it.each(accepted)("accepts norm %s", (literal, value) => {
    const doc = parseTraceText(bytes(withBody(GRAD(literal))));
    expect(Object.is(doc.gradients[0]?.norm, value)).toBe(true);
  });

  it.each(["1e400", "-1e400", "1.8e308"])("rejects %s as number out of range", (literal) => {
    const error = parseError(bytes(withBody(GRAD(literal))));
    expect(error).toMatchObject({ stage: "line", line: 3, code: "number_out_of_range" });
    expect(error.message).toContain("number out of range");
  });

  it.each(['"0.4"', "true", "NaN", "Infinity", "[1]", ".5", "1."])("rejects norm %s", (literal) => {
    expect(parseError(bytes(withBody(GRAD(literal))))).toMatchObject({ stage: "line", line: 3 });
  });
});

describe("§4.6 strings", () => {
  const where: [string, (s: string) => string][] = [
    ["a known field", (s) => `{"kind":"span_end","id":${s}}`],
    ["a tag value", (s) => META.replace('"tags":{}', `"tags":{"k":${s}}`)],
    ["a tag key", (s) => META.replace('"tags":{}', `"tags":{${s}:"v"}`)],
  ];
  it.each(where)("rejects an escaped lone surrogate in %s", (_where, make) => {
    for (const s of ['"\\ud800"', '"\\udc00"', '"a\\ud800b"', '"\\ud800\\u0041"', '"\\udc00\\ud800"']) {
      const line = make(s);
      const input = line.startsWith('{"kind":"meta"')
        ? jsonl(line, ROOT_START, ROOT_END)
        : jsonl(META, ROOT_START, line);
      const error = parseError(bytes(input));
      expect(error.stage).toBe("line");
    }
  });

  it("accepts an escaped surrogate pair and decodes it", () => {
    const doc = parseTraceText(
      bytes(jsonl(META, ROOT_START.replace('"root"', '"\\ud83d\\ude00"'), ROOT_END)),
    );
    expect(doc.spans[0]?.name).toBe("😀");
  });

  it("accepts empty strings everywhere (no emptiness checks)", () => {
    const doc = parseTraceText(
      bytes(
        jsonl(
          META,
          '{"kind":"span_start","id":"","name":"","start_ns":0,"span_kind":"function","measured":true}',
          '{"kind":"span_end","id":""}',
        ),
      ),
    );
    expect(doc.spans[0]?.id).toBe("");
  });
});

describe("§3 enums and §2 required keys", () => {
  const cases: [string, string, string][] = [
    ["phase Train", META.replace('"phase":"infer"', '"phase":"Train"'), "unknown variant `Train`"],
    ["timing mode", META.replace('"timing_mode":"host"', '"timing_mode":"Host"'), "unknown variant `Host`"],
    ["meta without tags", META.replace(',"tags":{}', ""), "missing field `tags`"],
    ["tag value number", META.replace('"tags":{}', '"tags":{"batch":128}'), "invalid type"],
    ["tags as array", META.replace('"tags":{}', '"tags":[]'), "invalid type"],
  ];
  it.each(cases)("meta: %s", (_name, meta, phrase) => {
    const error = parseError(bytes(jsonl(meta, ROOT_START, ROOT_END)));
    expect(error).toMatchObject({ stage: "line", line: 1 });
    expect(error.message).toContain(phrase);
  });

  const lineCases: [string, string, string][] = [
    ["span_kind case", ROOT_START.replace('"function"', '"Function"'), "unknown variant `Function`"],
    [
      "kind carries span kind",
      '{"kind":"function","id":"s2","name":"x","start_ns":0}',
      "unknown variant `function`",
    ],
    ["terminal", '{"kind":"terminal","outcome":"complete","timestamp_ns":1}', "unknown variant `terminal`"],
    ["kind missing", '{"id":"s1"}', "missing field `kind`"],
    [
      "param_key",
      '{"kind":"gradient","event_id":"g","root":"r","param_key":"w","state":"present"}',
      "missing field `key`",
    ],
    [
      "step case",
      '{"kind":"span_start","id":"s2","name":"x","start_ns":0,"span_kind":"op","step":"FORWARD"}',
      "unknown variant `FORWARD`",
    ],
    [
      "action",
      '{"kind":"memory","timestamp_ns":1,"tensor_id":"t","span_id":"s1","device":"cpu","bytes":1,"action":"Alloc","dtype":"u8"}',
      "unknown variant `Alloc`",
    ],
    [
      "category",
      '{"kind":"tensor","span_id":"s1","tensor_id":"t","dtype":"f32","device":"cpu","category":"weights"}',
      "unknown variant `weights`",
    ],
    [
      "state",
      '{"kind":"gradient","event_id":"g","root":"r","key":"w","state":"nan"}',
      "unknown variant `nan`",
    ],
    ["kind as number", '{"kind":1,"id":"s1"}', "invalid type"],
    [
      "inputs element not string",
      '{"kind":"op","span_id":"s1","op_name":"m","inputs":[1],"dtype":"f32","device":"cpu","duration_ns":1}',
      "invalid type",
    ],
    [
      "measured as string",
      '{"kind":"span_start","id":"s2","name":"x","start_ns":0,"span_kind":"op","measured":"true"}',
      "invalid type",
    ],
    [
      "op without duration",
      '{"kind":"op","span_id":"s1","op_name":"m","dtype":"f32","device":"cpu"}',
      "missing field `duration_ns`",
    ],
  ];
  it.each(lineCases)("line: %s", (_name, line, phrase) => {
    const error = parseError(bytes(jsonl(META, ROOT_START, line, ROOT_END)));
    expect(error).toMatchObject({ stage: "line", line: 3 });
    expect(error.message).toContain(phrase);
  });

  it("accepts a param_key alongside key (ignored as unknown)", () => {
    const doc = parseTraceText(
      bytes(
        withBody(
          '{"kind":"gradient","event_id":"g","root":"r","param_key":"old","key":"w","state":"zero","norm":0.0}',
        ),
      ),
    );
    expect(doc.gradients[0]?.key).toBe("w");
  });

  it("accepts a 0.5.0-style meta without the sync flag (reads false)", () => {
    const doc = parseTraceText(
      bytes(jsonl(META.replace('"measured_region_device_synchronized":false,', ""), ROOT_START, ROOT_END)),
    );
    expect(doc.run.measured_region_device_synchronized).toBe(false);
  });
});
