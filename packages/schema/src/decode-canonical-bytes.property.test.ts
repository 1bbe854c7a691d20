// The canonical-bytes tier (decodeCanonicalLine / readCanonicalLine) against the JSON.parse tiers: for every line it
// accepts, decodeTraceLine gives the same event (same keys in the same order, same values); it
// accepts every canonical line of the subset it covers; and no mutation of a line makes it accept
// something decodeTraceLine rejects or decodes differently.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anyEvent, canonicalSubset } from "../test/event-arbitraries.js";
import { type CanonicalLine, decodeCanonicalLine, readCanonicalLine } from "./decode-canonical-bytes.js";
import { decodeTraceLine } from "./decode-trace-line.js";
import { encodeTraceEvent } from "./encode-events.js";
import type { TraceEvent } from "./events.js";
import { trimTraceLine } from "./trim-trace-line.js";

const encoder = new TextEncoder();

/**
 * Asserts the canonical-bytes tier's event is decodeTraceLine's, with its keys in line order. (The order of the text
 * tiers depends on the tier: line order when the parsed object is reused, schema order when the
 * exact tier builds a fresh one; key order is not part of the contract.)
 */
function expectSameAsTextTiers(event: TraceEvent, line: string): void {
  const expected = decodeTraceLine(line);
  expect(expected.ok, line).toBe(true);
  if (!expected.ok) return;
  expect(event).toStrictEqual(expected.event);
  expect(Object.keys(event)).toEqual(Object.keys(JSON.parse(line)));
}

describe("decodeCanonicalLine", () => {
  it("decodes every canonical line of its subset exactly as decodeTraceLine does", () => {
    fc.assert(
      fc.property(canonicalSubset, (event) => {
        const line = encodeTraceEvent(event);
        const decoded = decodeCanonicalLine(encoder.encode(line));
        expect(decoded, line).toBeDefined();
        expectSameAsTextTiers(decoded as TraceEvent, line);
        expect(decoded).toStrictEqual(event);
      }),
      { numRuns: 5000 },
    );
  });

  it("returns undefined or decodeTraceLine's event for any encoded event", () => {
    let accepted = 0;
    fc.assert(
      fc.property(anyEvent, (event) => {
        const line = encodeTraceEvent(event);
        const decoded = decodeCanonicalLine(encoder.encode(line));
        if (decoded === undefined) return;
        accepted++;
        expectSameAsTextTiers(decoded, line);
      }),
      { numRuns: 5000 },
    );
    expect(accepted).toBeGreaterThan(500);
  });

  it("never accepts a mutated line that decodeTraceLine rejects or reads differently", () => {
    const mutation = fc.record({
      at: fc.nat(),
      type: fc.constantFrom("replace", "insert", "delete", "cut"),
      byte: fc.oneof(
        fc.constantFrom(...encoder.encode(' ",:[]{}\\0123456789-+.eEtfnul\r\n\t'), 0x80, 0xc3, 0xff, 0x00),
        fc.integer({ min: 0, max: 255 }),
      ),
    });
    let accepted = 0;
    fc.assert(
      fc.property(canonicalSubset, fc.array(mutation, { minLength: 1, maxLength: 3 }), (event, mutations) => {
        let bytes = Array.from(encoder.encode(encodeTraceEvent(event)));
        for (const { at, type, byte } of mutations) {
          const index = at % (bytes.length + 1);
          if (type === "replace") bytes[index] = byte;
          else if (type === "insert") bytes.splice(index, 0, byte);
          else if (type === "delete") bytes.splice(index, 1);
          else bytes = bytes.slice(0, index);
        }
        const mutated = Uint8Array.from(bytes);
        const decoded = decodeCanonicalLine(mutated);
        if (decoded === undefined) return;
        accepted++;
        // Accepted bytes are ASCII, so decoding them as text cannot fail.
        expectSameAsTextTiers(decoded, new TextDecoder("utf-8", { fatal: true }).decode(mutated));
      }),
      { numRuns: 20_000 },
    );
    // Some mutations keep a line valid (a digit for a digit, a letter inside a string).
    expect(accepted).toBeGreaterThan(100);
  });

  it("leaves valid lines outside its subset to the other tiers", () => {
    const op =
      '{"kind":"op","span_id":"s1","op_name":"matmul","inputs":[],"shape":[2],"dtype":"f32","device":"cpu","duration_ns":5,"timestamp_ns":7,"input_storage_bytes":0}';
    const valid = [
      op.replace('"matmul"', '"mat\\u006dul"'), // an escape
      op.replace('"matmul"', '"matmül"'), // non-ASCII
      op.replace(',"shape":[2]', ',"shape":[2],"note":1'), // an unknown key
      op.replace('"span_id":"s1","op_name":"matmul"', '"op_name":"matmul","span_id":"s1"'), // key order
      op.replace('"inputs":[]', '"inputs":[],"output":null'), // null for an optional key
      op.replace('"timestamp_ns":7,', ""), // a defaulted key left out
      op.replace('"duration_ns":5', '"duration_ns":1234567890123456'), // 16 digits
      op.replace('"duration_ns":5', '"duration_ns":18446744073709551615'), // above 2^53
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","measured_region_device_synchronized":false,"timing_mode":"host","tags":{}}',
      '{"kind":"gradient","event_id":"g","root":"r","key":"k","state":"non_finite","norm":null}',
    ];
    for (const line of valid) {
      expect(decodeTraceLine(line).ok, line).toBe(true);
      expect(decodeCanonicalLine(encoder.encode(line)), line).toBeUndefined();
    }
    expect(decodeCanonicalLine(encoder.encode(op))).toBeDefined();
  });

  it("reads lines with JSON white space between tokens exactly as decodeTraceLine does", () => {
    const space = fc.constantFrom("", "", "", " ", "  ", "\t", "\r", " \t");
    fc.assert(
      fc.property(canonicalSubset, fc.infiniteStream(space), (event, spaces) => {
        // Subset strings hold no quote or backslash, so a quote always opens or closes a string.
        const compact = encodeTraceEvent(event);
        let line = spaces.next().value as string;
        let inString = false;
        for (const character of compact) {
          if (character === '"') inString = !inString;
          const structural = !inString && character !== '"' && "{}[],:".includes(character);
          line += structural ? `${spaces.next().value}${character}${spaces.next().value}` : character;
        }
        line += spaces.next().value;
        const decoded = decodeCanonicalLine(encoder.encode(line));
        expect(decoded, JSON.stringify(line)).toBeDefined();
        expect(decoded).toStrictEqual(event);
        expectSameAsTextTiers(decoded as TraceEvent, trimTraceLine(line));
      }),
      { numRuns: 3000 },
    );
    // White space inside a token is not white space between tokens.
    for (const line of [
      '{"kind":"span_end","id":"s1","duration_ns":4 2}',
      '{"kind":"span_end","id":"s1","duration_ns":42,}',
      '{"kind":"span_end" ,"id":"s1","duration_ns":42}x',
      '{"kind":"span_end","id":"s1","duration_ns":42} }',
      '{"kind":"span_end","id":"s1","duration_ns":42}\u000c',
      '{"kind":"span_end", "id" :"s1" ,"duration_ns" : t}',
      '{"kind":"span_end", "id ":"s1","duration_ns":42}',
      '{"kind":"span_end", " id":"s1","duration_ns":42}',
      '{ "kind" : "span_end", "id":"s1", "duration _ns":42}',
      '{"kind":"tensor","span_id":"s","tensor_id":"t","shape":[1 2],"dtype":"f32","device":"cpu","requires_grad":false,"category":"other"}',
      '{"kind":"tensor","span_id":"s","tensor_id":"t","shape":[1,2],"dtype":"f32","device":"cpu","requires_grad":fal se,"category":"other"}',
    ]) {
      expect(decodeCanonicalLine(encoder.encode(line)), line).toBeUndefined();
    }
  });

  it("rejects invalid lines of canonical shape", () => {
    const invalid = [
      '{"kind":"span_end","id":"s1","duration_ns":05}',
      '{"kind":"span_end","id":"s1","duration_ns":00}',
      '{"kind":"span_end","id":"s1","duration_ns":0123456}',
      '{"kind":"tensor","span_id":"s","tensor_id":"t","shape":[2,07],"dtype":"f32","device":"cpu","requires_grad":false,"category":"other"}',
      '{"kind":"span_end","id":"s1","duration_ns":-5}',
      '{"kind":"span_end","id":"s1","duration_ns":5.0}',
      '{"kind":"span_end","id":"s1","duration_ns":5e2}',
      '{"kind":"span_end","id":"s1","duration_ns":"5"}',
      '{"kind":"span_end","id":"s1","duration_ns":5,"duration_ns":6}',
      '{"kind":"span_end","id":"s1","duration_ns":5',
      '{"kind":"span_end","id":"s1","duration_ns":5}}',
      '{"kind":"span_end","id":s1,"duration_ns":5}',
      '{"kind":"span_start","id":"s1","name":"n","start_ns":0,"span_kind":"Function","measured":false}',
      '{"kind":"span_start","id":"s1","name":"n","start_ns":0,"span_kind":"function","measured":0}',
      '{"kind":"tensor","span_id":"s","tensor_id":"t","shape":[1,],"dtype":"f32","device":"cpu","requires_grad":false,"category":"other"}',
      '{"kind":"tensor","span_id":"s","tensor_id":"t","shape":[,1],"dtype":"f32","device":"cpu","requires_grad":false,"category":"other"}',
      '{"kind":"gradient","event_id":"g","root":"r","key":"k","state":"present","norm":1e400}',
      '{"kind":"gradient","event_id":"g","root":"r","key":"k","state":"present","norm":.5}',
      '{"kind":"spanend","id":"s1","duration_ns":5}',
      "",
      "{}",
    ];
    for (const line of invalid) expect(decodeCanonicalLine(encoder.encode(line)), line).toBeUndefined();
  });

  it("reads zeros, alone and inside shapes, and numbers with zeros after the first digit", () => {
    const read = (line: string) => decodeCanonicalLine(encoder.encode(line)) as Record<string, unknown>;
    expect(read('{"kind":"span_end","id":"s1","duration_ns":0}').duration_ns).toBe(0);
    expect(read('{"kind":"span_end","id":"s1","duration_ns":100000000000000}').duration_ns).toBe(1e14);
    expect(
      read(
        '{"kind":"tensor","span_id":"s","tensor_id":"t","shape":[0,10,0],"dtype":"f32","device":"cpu","requires_grad":false,"category":"other"}',
      ).shape,
    ).toStrictEqual([0, 10, 0]);
  });

  it("reads a range of a larger buffer and never past it", () => {
    const line = '{"kind":"span_end","id":"s1","duration_ns":42}';
    const buffer = encoder.encode(`xx${line}yy`);
    expect(decodeCanonicalLine(buffer, 2, 2 + line.length)).toStrictEqual({
      kind: "span_end",
      id: "s1",
      duration_ns: 42,
    });
    expect(decodeCanonicalLine(buffer, 2, 2 + line.length - 1)).toBeUndefined();
    expect(decodeCanonicalLine(buffer, 2, 2 + line.length + 1)).toBeUndefined();
    // A range ending inside a string or a number.
    expect(decodeCanonicalLine(buffer, 2, 2 + line.indexOf("s1") + 1)).toBeUndefined();
    expect(decodeCanonicalLine(buffer, 2, 2 + line.indexOf("42") + 1)).toBeUndefined();
  });

  it("keeps strings apart however many share the cache, and owes nothing to the buffer", () => {
    // 20,000 distinct ids of 1 to 40 characters: far more than the cache has slots.
    const ids = Array.from({ length: 20_000 }, (_, index) => `${"t".repeat(1 + (index % 40))}${index}`);
    const buffer = new Uint8Array(256);
    for (let round = 0; round < 2; round++) {
      for (const id of ids) {
        const line = encoder.encode(`{"kind":"span_end","id":"${id}","duration_ns":1}`);
        buffer.fill(0x20);
        buffer.set(line);
        const event = decodeCanonicalLine(buffer, 0, line.length);
        expect(event?.kind === "span_end" && event.id).toBe(id);
      }
    }
  });

  it("reads strings of every length, past the caches and the short-string scan", () => {
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 -_/.:#~{}[],";
    for (const length of [0, 1, 3, 4, 5, 11, 12, 13, 63, 64, 65, 255, 256, 257, 5000]) {
      const name = Array.from({ length }, (_, index) => alphabet[(index * 7) % alphabet.length]).join("");
      const event: TraceEvent = {
        kind: "span_start",
        id: `s${length}`,
        name,
        start_ns: length,
        span_kind: "module",
        measured: true,
      };
      const line = encodeTraceEvent(event);
      for (let round = 0; round < 2; round++) {
        expect(decodeCanonicalLine(encoder.encode(line)), `length ${length}`).toStrictEqual(event);
      }
    }
  });
});

describe("readCanonicalLine", () => {
  it("walks canonical lines in one buffer, finding each line's end", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(canonicalSubset, fc.constantFrom("\n", "\r\n")), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (lines, finalLineFeed) => {
          let text = lines.map(([event, ending]) => encodeTraceEvent(event) + ending).join("");
          if (!finalLineFeed) text = text.replace(/\r?\n$/, "");
          const bytes = encoder.encode(text);
          const into: CanonicalLine = { event: undefined, end: 0 };
          let start = 0;
          for (const [event] of lines) {
            expect(readCanonicalLine(bytes, start, into)).toBe(true);
            expect(into.event).toStrictEqual(event);
            const lineFeed = bytes.indexOf(0x0a, start);
            expect(into.end).toBe(lineFeed === -1 ? bytes.length : lineFeed);
            start = into.end + 1;
          }
          expect(start).toBeGreaterThanOrEqual(bytes.length);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("refuses a line followed by anything but a line end", () => {
    const into: CanonicalLine = { event: undefined, end: 0 };
    const line = '{"kind":"span_end","id":"s1","duration_ns":42}';
    for (const after of ["x", " x\n", ",", "}", "\u000c\n"]) {
      expect(readCanonicalLine(encoder.encode(line + after), 0, into), JSON.stringify(after)).toBe(false);
    }
    for (const after of ["", "\n", "\r\n", "\r", " \n", "\r\r\n", "\t"]) {
      expect(readCanonicalLine(encoder.encode(line + after), 0, into), JSON.stringify(after)).toBe(true);
    }
  });
});
