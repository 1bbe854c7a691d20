// The decoded column reader (the WebAssembly decoder in front of the JavaScript tier) against the
// JavaScript tier alone: fed the same pieces of a trace line by line, as the line processor feeds
// them, it returns the same line ends and fills the same batch — on canonical lines, on lines
// only the slower tiers accept (white space, CR, escapes, long integers, unknown keys), across
// skipped lines, cleared batches, reused buffers, and pieces that overflow the decoder's tables.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anyEvent, canonicalSubset } from "../test/event-arbitraries.js";
import { type CanonicalColumnReader, canonicalColumnReader } from "./canonical-column-reader.js";
import { createCanonicalDecoder } from "./canonical-decoder.js";
import { ColumnBatch } from "./column-batch.js";
import { decodeTraceLine } from "./decode-trace-line.js";
import {
  type ColumnLineReader,
  compileDecodedColumnReader,
  decodedColumnReader,
  RUN_CHECK,
  RUN_READ,
  RUN_STOP,
} from "./decoded-column-reader.js";
import { encodeTraceEvent } from "./encode-events.js";
import { EVENT_LAYOUTS, type EventLayoutTable } from "./event-layouts.js";
import type { TraceEvent } from "./events.js";

const encoder = new TextEncoder();

/** The decoded reader, which here has a decoder, so `run`. */
type RunningReader = ColumnLineReader & Required<Pick<ColumnLineReader, "run">>;

/** Rewrites of a canonical line that the JavaScript tiers may still accept (or refuse). */
const MUTATIONS: ((line: string) => string)[] = [
  (line) => line,
  (line) => line.replace(/,"/, ', "'),
  (line) => line.replace(/":/, '" :'),
  (line) => `${line}\r`,
  (line) => `${line} `,
  (line) => line.replace(/:(\d+)/, ":1234567890123456"),
  (line) => line.replace(/:(\d+)/, ":999999999999999"),
  (line) => line.replace(/:(\d+)/, ":0$1"),
  (line) => line.replace(/":"([^"]*)"/, '":"\\u0041$1"'),
  (line) => line.replace(/":"([^"]*)"/, '":"é$1"'),
  (line) => line.replace(/}$/, ',"extra":1}'),
  (line) => line.replace(/\[(\d)/, "[ $1"),
  (line) => line.replace(/"(activation|alloc|free|weight|gradient)"/, '"Activation"'),
  (line) => line.replace(/true/, "True"),
  () => "",
];

/** Half the lines as written, the other half rewritten by one of MUTATIONS. */
const mutatedLine = fc
  .tuple(
    fc.oneof(canonicalSubset, canonicalSubset, anyEvent),
    fc.oneof(fc.constant(0), fc.nat(MUTATIONS.length - 1)),
  )
  .map(([event, mutation]) => (MUTATIONS[mutation] as (line: string) => string)(encodeTraceEvent(event)));

/** The batch's events built from its columns, with the lines and indexes they were given. */
function contents(batch: ColumnBatch): unknown[] {
  return Array.from({ length: batch.size }, (_, at) => [
    batch.columnEvent(at),
    batch.lines[at],
    batch.indexes[at],
  ]);
}

/**
 * Reads `bytes` line by line as the line processor does: the column reader first, the text tiers
 * where it declines. Lines whose number is in `skip` are stepped over without a read. Returns each
 * read's result.
 */
function readPiece(
  read: CanonicalColumnReader,
  batch: ColumnBatch,
  bytes: Uint8Array,
  skip: ReadonlySet<number> = new Set(),
  firstLine = 1,
): number[] {
  const results: number[] = [];
  let start = 0;
  let line = firstLine;
  while (start < bytes.length) {
    let lineEnd = bytes.indexOf(10, start);
    if (lineEnd < 0) lineEnd = bytes.length;
    if (!skip.has(line)) {
      const end = read(bytes, start, line, line - 1);
      results.push(end);
      if (end < 0) {
        const decoded = decodeTraceLine(new TextDecoder().decode(bytes.subarray(start, lineEnd)));
        if (decoded.ok) batch.appendEvent(decoded.event, line, line - 1);
      } else {
        expect(end).toBe(lineEnd);
      }
    }
    start = lineEnd + 1;
    line++;
  }
  return results;
}

/** Both readers over the same pieces; their results and batches must be equal. */
function expectSameReads(pieces: Uint8Array[], skip?: ReadonlySet<number>): void {
  const plainBatch = new ColumnBatch();
  const decodedBatch = new ColumnBatch();
  const plain = canonicalColumnReader(plainBatch);
  const decoded = decodedColumnReader(decodedBatch);
  let firstLine = 1;
  for (const piece of pieces) {
    decoded.forget();
    const expected = readPiece(plain, plainBatch, piece, skip, firstLine);
    expect(readPiece(decoded, decodedBatch, piece, skip, firstLine)).toEqual(expected);
    firstLine += piece.filter((byte) => byte === 10).length;
  }
  expect(contents(decodedBatch)).toEqual(contents(plainBatch));
}

const piece = (lines: readonly string[]): Uint8Array => encoder.encode(`${lines.join("\n")}\n`);

describe("decodedColumnReader", () => {
  it("has a decoder here (WebAssembly with SIMD), so the properties below test it", () => {
    expect(createCanonicalDecoder(EVENT_LAYOUTS)).toBeDefined();
  });

  it("reads a piece of lines as the JavaScript tier does, line ends and columns", () => {
    // How many lines the decoder itself took (not its JavaScript fallback), and how many it declined.
    const decoder = createCanonicalDecoder(EVENT_LAYOUTS);
    if (decoder === undefined) throw new Error("no decoder");
    let taken = 0;
    let declined = 0;
    fc.assert(
      fc.property(fc.array(mutatedLine, { minLength: 1, maxLength: 40 }), (lines) => {
        const bytes = piece(lines);
        expectSameReads([bytes]);
        decoder.input.set(bytes);
        const count = decoder.decode(bytes.length);
        for (let at = 0; at < count; at++) {
          if ((decoder.lineKinds[at] as number) >= 0) taken++;
          else declined++;
        }
      }),
      { numRuns: 800 },
    );
    expect(taken).toBeGreaterThan(0.3 * (taken + declined));
    expect(declined).toBeGreaterThan(0.3 * (taken + declined));
  });

  it("steps over the lines the processor skips, and reads a piece's last line without its LF", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(canonicalSubset, anyEvent), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(30)),
        fc.boolean(),
        (events, skipped, terminated) => {
          const text = events.map((event) => encodeTraceEvent(event)).join("\n");
          expectSameReads([encoder.encode(terminated ? `${text}\n` : text)], new Set(skipped));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("gives a reused buffer's new bytes their own values after forget", () => {
    // Lines of one width, so that each piece's lines start where the last piece's did; the processor
    // skips some (other kinds), so a piece may start reading where the last one left lines unread.
    const memoryLine = (id: number) =>
      `{"kind":"memory","timestamp_ns":${1000 + id},"tensor_id":"t${1000 + id}","span_id":"s1","device":"cpu","bytes":4,"action":"alloc","shape":[1],"dtype":"f32","category":"activation"}`;
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.nat(8999), { minLength: 6, maxLength: 6 }), { minLength: 2, maxLength: 5 }),
        fc.array(fc.array(fc.nat(5), { maxLength: 6 }), { minLength: 5, maxLength: 5 }),
        (groups, skips) => {
          const texts = groups.map((ids) => piece(ids.map(memoryLine)));
          // One buffer refilled per piece, as the file reader refills its chunks.
          const buffer = new Uint8Array((texts[0] as Uint8Array).length);
          const plainBatch = new ColumnBatch();
          const decodedBatch = new ColumnBatch();
          const plain = canonicalColumnReader(plainBatch);
          const decoded = decodedColumnReader(decodedBatch);
          texts.forEach((text, index) => {
            buffer.set(text);
            decoded.forget();
            // Line numbers restart per piece: a skipped line is the same line in both readers.
            const skip = new Set((skips[index] as number[]).map((line) => line + 1));
            readPiece(plain, plainBatch, buffer.slice(), skip);
            readPiece(decoded, decodedBatch, buffer, skip);
          });
          expect(contents(decodedBatch)).toEqual(contents(plainBatch));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps the dictionary right when the batch is cleared part-way through a piece", () => {
    fc.assert(
      fc.property(
        fc.array(canonicalSubset, { minLength: 2, maxLength: 30 }),
        fc.nat(29),
        (events, clearAfter) => {
          const bytes = piece(events.map((event) => encodeTraceEvent(event)));
          const batch = new ColumnBatch();
          const read = decodedColumnReader(batch);
          const seen: TraceEvent[] = [];
          let start = 0;
          for (let index = 0; index < events.length; index++) {
            const end = read(bytes, start, index + 1, index);
            expect(end).toBeGreaterThan(start);
            seen.push(batch.columnEvent(batch.size - 1));
            // The batch handed on and cleared: later lines intern into a fresh dictionary.
            if (index === clearAfter) batch.clear();
            start = end + 1;
          }
          const expected = events.map((event) => {
            const decoded = decodeTraceLine(encodeTraceEvent(event));
            if (!decoded.ok) throw new Error(decoded.error.message);
            return decoded.event;
          });
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads right when more readers than the pool has take turns line by line", () => {
    // Six readers, four decoders: a reader whose decoder was taken decodes its piece again.
    fc.assert(
      fc.property(
        fc.array(fc.array(canonicalSubset, { minLength: 1, maxLength: 12 }), { minLength: 6, maxLength: 6 }),
        fc.array(fc.nat(5), { minLength: 20, maxLength: 80 }),
        (groups, turns) => {
          const readers = groups.map((events) => {
            const bytes = piece(events.map((event) => encodeTraceEvent(event)));
            const plainBatch = new ColumnBatch();
            const decodedBatch = new ColumnBatch();
            return {
              bytes,
              start: 0,
              line: 1,
              plain: canonicalColumnReader(plainBatch),
              decoded: decodedColumnReader(decodedBatch),
              plainBatch,
              decodedBatch,
            };
          });
          for (const turn of turns) {
            const reader = readers[turn] as (typeof readers)[number];
            if (reader.start >= reader.bytes.length) continue;
            const { bytes, start, line } = reader;
            const end = reader.plain(bytes, start, line, line - 1);
            expect(reader.decoded(bytes, start, line, line - 1)).toBe(end);
            reader.start = bytes.indexOf(10, start) + 1;
            reader.line++;
          }
          for (const reader of readers) {
            expect(contents(reader.decodedBatch)).toEqual(contents(reader.plainBatch));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("decodes again where a piece overflows the decoder's tables", () => {
    // More distinct strings (tensor ids) than one decode holds: it stops, and goes on from there.
    const lines: string[] = [];
    for (let index = 0; index < 30_000; index++) {
      lines.push(
        `{"kind":"memory","timestamp_ns":${index},"tensor_id":"t${index}","span_id":"s1","device":"cpu","bytes":4,"action":"alloc","shape":[1],"dtype":"f32","category":"activation"}`,
      );
    }
    expectSameReads([piece(lines)]);
  });

  it("commits runs right where a piece has more rows or list elements than the decoder stages", () => {
    // The decoder stages at most 8,192 rows per kind and 32,768 elements per list field in one
    // call: it stops there, and the run's next lines are decoded again from where it stopped.
    const rows = Array.from({ length: 20_000 }, (_, index) =>
      index % 7 === 0
        ? `{"kind":"op","span_id":"s${index % 5}","op_name":"add","inputs":["t${index}","t${index + 1}"],"shape":[${index},2],"dtype":"f32","device":"cpu","duration_ns":${index},"timestamp_ns":0,"input_storage_bytes":0}`
        : `{"kind":"span_end","id":"s${index}","duration_ns":${index}}`,
    );
    const dimensions = Array.from({ length: 100 }, (_, index) => index + 1).join(",");
    const elements = Array.from(
      { length: 2_000 },
      (_, index) =>
        `{"kind":"tensor","span_id":"s1","tensor_id":"t${index}","shape":[${dimensions}],"dtype":"f32","device":"cpu","requires_grad":false,"storage_bytes":4,"category":"parameter"}`,
    );
    for (const lines of [rows, elements]) {
      const bytes = piece(lines);
      const plainBatch = new ColumnBatch();
      const decodedBatch = new ColumnBatch();
      readPiece(canonicalColumnReader(plainBatch), plainBatch, bytes);
      const decoded = decodedColumnReader(decodedBatch) as RunningReader;
      const runKinds = new Uint8Array(Object.keys(EVENT_LAYOUTS).length).fill(RUN_READ);
      let start = 0;
      let line = 1;
      let runs = 0;
      while (start < bytes.length) {
        const end = decoded.run(bytes, start, line, line - 1, 5_000, 10_000, runKinds, () => true);
        expect(end).toBeGreaterThan(start);
        line += bytes.subarray(start, end).filter((byte) => byte === 10).length;
        start = end;
        runs++;
      }
      expect(line - 1).toBe(lines.length);
      expect(runs).toBeGreaterThan(lines.length / 5_000);
      expect(contents(decodedBatch)).toEqual(contents(plainBatch));
      expect(decodedBatch.strings).toEqual(plainBatch.strings);
    }
  });

  it("hands a line longer than the decoder's input to the JavaScript tier", () => {
    const long = `{"kind":"op","span_id":"s1","op_name":"${"x".repeat(1_100_000)}","inputs":[],"shape":[],"dtype":"f32","device":"cpu","duration_ns":1,"timestamp_ns":0,"input_storage_bytes":0}`;
    const short =
      '{"kind":"op","span_id":"s1","op_name":"add","inputs":["a"],"shape":[2],"dtype":"f32","device":"cpu","duration_ns":1,"timestamp_ns":0,"input_storage_bytes":0}';
    expectSameReads([piece([short, long, short])]);
  });

  it("commits runs of lines as it commits them one by one, wherever runs start and stop", () => {
    // A random drive of the decoded reader: runs of random length, kind modes and line limits, lines
    // read one by one, and batches handed on and cleared, against the JavaScript tier line by line.
    const kinds = Object.keys(EVENT_LAYOUTS).length;
    fc.assert(
      fc.property(
        fc.array(mutatedLine, { minLength: 1, maxLength: 60 }),
        fc.array(fc.tuple(fc.nat(9), fc.integer({ min: 1, max: 40 })), { minLength: 1, maxLength: 60 }),
        fc.array(fc.constantFrom(RUN_READ, RUN_STOP, RUN_CHECK), { minLength: kinds, maxLength: kinds }),
        fc.integer({ min: 60, max: 400 }),
        fc.nat(),
        (lines, steps, modes, maxLength, seed) => {
          const bytes = piece(lines);
          const runKinds = Uint8Array.from(modes);
          const plainBatch = new ColumnBatch();
          const decodedBatch = new ColumnBatch();
          const plain = canonicalColumnReader(plainBatch);
          const decoded = decodedColumnReader(decodedBatch) as RunningReader;
          const lineEnds: number[] = [];
          for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) lineEnds.push(at);
          /** Lines a run committed after their check passed: the check must pass only those. */
          const passed = new Set<number>();
          const check = (code: number, text: string, line: number): boolean => {
            expect(runKinds[code]).toBe(RUN_CHECK);
            // The text given is the line's first field, as the columns hold it once committed.
            const ok = (text.length + line + seed) % 3 !== 0;
            if (ok) passed.add(line);
            return ok;
          };
          const compare = () => {
            expect(contents(decodedBatch)).toEqual(contents(plainBatch));
            // Each string once (a run interns through the batch, as a line does).
            expect(new Set(decodedBatch.strings).size).toBe(decodedBatch.strings.length);
          };
          const readOne = (index: number) => {
            const start = index === 0 ? 0 : (lineEnds[index - 1] as number) + 1;
            const end = plain(bytes, start, index + 1, index);
            if (end < 0) {
              const text = new TextDecoder().decode(bytes.subarray(start, lineEnds[index]));
              const event = decodeTraceLine(text);
              if (event.ok) plainBatch.appendEvent(event.event, index + 1, index);
            }
            return { start, end };
          };
          let index = 0;
          let step = 0;
          while (index < lineEnds.length) {
            const [action, maxLines] = steps[step++ % steps.length] as [number, number];
            if (action === 0) {
              // The batch handed on and cleared; the next line is read on its own.
              compare();
              plainBatch.clear();
              decodedBatch.clear();
            }
            const start = index === 0 ? 0 : (lineEnds[index - 1] as number) + 1;
            if (action >= 4) {
              const before = decodedBatch.size;
              const end = decoded.run(bytes, start, index + 1, index, maxLines, maxLength, runKinds, check);
              const count = decodedBatch.size - before;
              if (end < 0) {
                expect(count).toBe(0);
              } else {
                expect(count).toBeGreaterThan(0);
                expect(count).toBeLessThanOrEqual(maxLines);
                expect(end).toBe((lineEnds[index + count - 1] as number) + 1);
                for (let line = index; line < index + count; line++) {
                  expect(readOne(line).end).toBe(lineEnds[line]);
                  const code = decodedBatch.kinds[before + line - index] as number;
                  expect(runKinds[code]).not.toBe(RUN_STOP);
                  if (runKinds[code] === RUN_CHECK) expect(passed.has(line + 1)).toBe(true);
                }
                index += count;
                continue;
              }
            }
            const { end } = readOne(index);
            const decodedEnd = decoded(bytes, start, index + 1, index);
            expect(decodedEnd).toBe(end);
            if (decodedEnd < 0) {
              const text = new TextDecoder().decode(bytes.subarray(start, lineEnds[index]));
              const event = decodeTraceLine(text);
              if (event.ok) decodedBatch.appendEvent(event.event, index + 1, index);
            }
            index++;
          }
          compare();
        },
      ),
      { numRuns: 600 },
    );
  });

  it("commits runs right when more readers than the pool has take turns", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(canonicalSubset, { minLength: 1, maxLength: 20 }), { minLength: 6, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(5), fc.integer({ min: 1, max: 8 })), { minLength: 10, maxLength: 60 }),
        (groups, turns) => {
          const runKinds = new Uint8Array(Object.keys(EVENT_LAYOUTS).length);
          const readers = groups.map((events) => {
            const plainBatch = new ColumnBatch();
            const decodedBatch = new ColumnBatch();
            return {
              events,
              bytes: piece(events.map((event) => encodeTraceEvent(event))),
              start: 0,
              line: 1,
              plain: canonicalColumnReader(plainBatch),
              decoded: decodedColumnReader(decodedBatch) as RunningReader,
              plainBatch,
              decodedBatch,
            };
          });
          for (const [turn, maxLines] of turns) {
            const reader = readers[turn] as (typeof readers)[number];
            if (reader.start >= reader.bytes.length) continue;
            const { bytes, line } = reader;
            const before = reader.decodedBatch.size;
            const end = reader.decoded.run(
              bytes,
              reader.start,
              line,
              line - 1,
              maxLines,
              1e6,
              runKinds,
              () => true,
            );
            const count = reader.decodedBatch.size - before;
            if (end < 0) {
              // A line the decoder declines (meta): read on its own by both.
              const next = reader.plain(bytes, reader.start, line, line - 1);
              expect(reader.decoded(bytes, reader.start, line, line - 1)).toBe(next);
              const lineEnd = bytes.indexOf(10, reader.start);
              if (next < 0) {
                const event = decodeTraceLine(
                  new TextDecoder().decode(bytes.subarray(reader.start, lineEnd)),
                );
                if (!event.ok) throw new Error(event.error.message);
                reader.plainBatch.appendEvent(event.event, line, line - 1);
                reader.decodedBatch.appendEvent(event.event, line, line - 1);
              }
              reader.start = lineEnd + 1;
              reader.line++;
              continue;
            }
            for (let at = 0; at < count; at++) {
              reader.start = reader.plain(bytes, reader.start, reader.line, reader.line - 1) + 1;
              reader.line++;
            }
            expect(reader.start).toBe(end);
          }
          for (const reader of readers) {
            expect(contents(reader.decodedBatch)).toEqual(contents(reader.plainBatch));
            // Canonical lines: both intern exactly the strings the lines use, in the same order.
            expect(reader.decodedBatch.strings).toEqual(reader.plainBatch.strings);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("gives a run's check the empty string for a line whose first field is an absent string", () => {
    // A table whose span_end id is optional: the check sees the id where there is one, "" where not.
    const layouts = {
      ...EVENT_LAYOUTS,
      span_end: {
        ...EVENT_LAYOUTS.span_end,
        fields: EVENT_LAYOUTS.span_end.fields.map((field) =>
          field.key === "id" ? { ...field, presence: "optional" } : field,
        ),
      },
    } as EventLayoutTable;
    const code = Object.keys(layouts).indexOf("span_end");
    const batch = new ColumnBatch(layouts);
    const read = compileDecodedColumnReader(layouts)(batch) as RunningReader;
    const runKinds = new Uint8Array(Object.keys(layouts).length).fill(RUN_CHECK);
    const seen: string[] = [];
    const bytes = piece([
      '{"kind":"span_end","id":"s1","duration_ns":5}',
      '{"kind":"span_end","duration_ns":6}',
    ]);
    const end = read.run(bytes, 0, 1, 0, 10, 1000, runKinds, (kind, text) => {
      expect(kind).toBe(code);
      seen.push(text);
      return true;
    });
    expect(end).toBe(bytes.length);
    expect(seen).toEqual(["s1", ""]);
    expect(batch.size).toBe(2);
  });

  it("is the JavaScript tier alone where code generation is forbidden", () => {
    const forbidden = () => {
      throw new EvalError("code generation from strings disallowed");
    };
    const batch = new ColumnBatch(EVENT_LAYOUTS, forbidden);
    const read = compileDecodedColumnReader(EVENT_LAYOUTS, forbidden)(batch);
    const line = encoder.encode('{"kind":"span_end","id":"s1","duration_ns":5}\n');
    expect(read(line, 0, 1, 0)).toBe(-1);
    read.forget();
    expect(batch.size).toBe(0);
  });
});
