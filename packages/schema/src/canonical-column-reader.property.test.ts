// The canonical column reader against the canonical event reader and the text tiers: it accepts
// exactly the lines decodeCanonicalLine accepts, the event rebuilt from its columns is that event,
// a declined line leaves the batch as it was, events appended from the text tiers read back
// unchanged (u64 above 2^53 included), and a batch survives a transfer to another thread's form.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anyEvent, canonicalSubset } from "../test/event-arbitraries.js";
import { canonicalColumnReader } from "./canonical-column-reader.js";
import { ColumnBatch } from "./column-batch.js";
import { decodeCanonicalLine } from "./decode-canonical-bytes.js";
import { decodeTraceLine } from "./decode-trace-line.js";
import { encodeTraceEvent } from "./encode-events.js";
import { EVENT_LAYOUTS } from "./event-layouts.js";
import type { MetaEvent, TraceEvent } from "./events.js";

const encoder = new TextEncoder();

/** The batch's events built from its columns (not the text tiers' objects it also keeps). */
function allEvents(batch: ColumnBatch): TraceEvent[] {
  return Array.from({ length: batch.size }, (_, at) => batch.columnEvent(at));
}

describe("canonicalColumnReader", () => {
  it("accepts what the canonical event reader accepts and stores the same event", () => {
    const batch = new ColumnBatch();
    const read = canonicalColumnReader(batch);
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(canonicalSubset, anyEvent), { minLength: 1, maxLength: 12 }),
        (events) => {
          batch.clear();
          const expected: TraceEvent[] = [];
          let line = 1;
          for (const event of events) {
            const bytes = encoder.encode(`${encodeTraceEvent(event)}\n`);
            const decoded = decodeCanonicalLine(bytes, 0, bytes.length - 1);
            const end = read(bytes, 0, line, line - 1);
            if (decoded === undefined) {
              expect(end).toBe(-1);
            } else {
              expect(end).toBe(bytes.length - 1);
              expected.push(decoded);
              accepted++;
            }
            line++;
          }
          expect(allEvents(batch)).toEqual(expected);
          // Each field read alone is the event's property (absent optional keys: undefined).
          expected.forEach((event, at) => {
            const columns = batch.columns[batch.kinds[at] as number];
            for (const field of columns?.fields ?? []) {
              expect(batch.value(field, batch.rows[at] as number)).toEqual(
                (event as unknown as Record<string, unknown>)[field.key],
              );
            }
          });
        },
      ),
      { numRuns: 1500 },
    );
    expect(accepted).toBeGreaterThan(1000);
  });

  it("keeps two batches apart when their readers take turns line by line", () => {
    // One set of generated readers serves every batch: each line must land in its reader's batch.
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), canonicalSubset), { minLength: 1, maxLength: 16 }),
        (lines) => {
          const batches = [new ColumnBatch(), new ColumnBatch()];
          const readers = batches.map((batch) => canonicalColumnReader(batch));
          const expected: TraceEvent[][] = [[], []];
          lines.forEach(([second, event], index) => {
            const bytes = encoder.encode(`${encodeTraceEvent(event)}\n`);
            const which = second ? 1 : 0;
            expect((readers[which] as (typeof readers)[number])(bytes, 0, index + 1, index)).toBe(
              bytes.length - 1,
            );
            (expected[which] as TraceEvent[]).push(
              decodeCanonicalLine(bytes, 0, bytes.length - 1) as TraceEvent,
            );
          });
          expect(batches.map(allEvents)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("leaves the batch as it was when a line is declined half-way", () => {
    const batch = new ColumnBatch();
    const read = canonicalColumnReader(batch);
    const op =
      '{"kind":"op","span_id":"s1","op_name":"matmul","inputs":["a","b"],"shape":[2,3],"dtype":"f32","device":"cpu","duration_ns":5,"timestamp_ns":7,"input_storage_bytes":0}';
    expect(read(encoder.encode(op), 0, 1, 0)).toBe(op.length);
    // Declined after the lists were read: an escape in `device`.
    const declined = op
      .replace('"inputs":["a","b"],"shape":[2,3]', '"inputs":["x"],"shape":[9]')
      .replace('"cpu"', '"c\\u0070u"');
    expect(read(encoder.encode(declined), 0, 2, 1)).toBe(-1);
    expect(read(encoder.encode(op.replace("matmul", "add")), 0, 3, 2)).toBe(op.length - 3);
    expect(
      allEvents(batch).map((event) => event.kind === "op" && [event.op_name, event.inputs, event.shape]),
    ).toEqual([
      ["matmul", ["a", "b"], [2, 3]],
      ["add", ["a", "b"], [2, 3]],
    ]);
    expect(Array.from(batch.lines.subarray(0, batch.size))).toEqual([1, 3]);
  });

  it("holds events from the text tiers, exact u64 included, and survives a transfer", () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 20 }), (events) => {
        const batch = new ColumnBatch();
        const decoded = events.flatMap((event, index) => {
          const result = decodeTraceLine(encodeTraceEvent(event));
          if (!result.ok) return [];
          batch.appendEvent(result.event, index + 1, index);
          return [result.event];
        });
        expect(allEvents(batch)).toEqual(decoded);
        const { message, transfer } = batch.toMessage();
        const received = ColumnBatch.fromMessage(
          structuredClone(message, { transfer: transfer as ArrayBuffer[] }),
        );
        expect(allEvents(received)).toEqual(decoded);
        // `event` gives the text tiers' own objects back, their key order included.
        for (const [at, event] of decoded.entries()) {
          expect(Object.keys(received.event(at))).toEqual(Object.keys(event));
        }
        // The received dictionary still finds its strings: interning one gives its id back.
        for (const [id, text] of received.strings.entries()) expect(received.intern(text)).toBe(id);
      }),
      { numRuns: 500 },
    );
  });

  it("gives a meta event's tags back without a prototype after a transfer, as the decoder made them", () => {
    const line =
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"2025-01-01T00:00:00Z","capture_step":1,"warmup_steps":0,"device":"cpu","measured_region_device_synchronized":true,"timing_mode":"host","tags":{"__proto__":"x","a":"b"}}';
    const result = decodeTraceLine(line);
    if (!result.ok) throw new Error(result.error.message);
    const batch = new ColumnBatch();
    batch.appendEvent(result.event, 1, 0);
    const { message, transfer } = batch.toMessage();
    const received = ColumnBatch.fromMessage(
      structuredClone(message, { transfer: transfer as ArrayBuffer[] }),
    );
    for (const event of [received.event(0), received.columnEvent(0)]) {
      const tags = (event as MetaEvent).tags;
      expect(Object.getPrototypeOf(tags)).toBe(null);
      expect(Object.keys(tags)).toEqual(["__proto__", "a"]);
    }
  });

  it("builds the same events where code generation is forbidden", () => {
    const forbidden = () => {
      throw new EvalError("code generation from strings disallowed");
    };
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 10 }), (events) => {
        const generated = new ColumnBatch();
        const plain = new ColumnBatch(EVENT_LAYOUTS, forbidden);
        events.forEach((event, index) => {
          const result = decodeTraceLine(encodeTraceEvent(event));
          if (!result.ok) return;
          generated.appendEvent(result.event, index + 1, index);
          plain.appendEvent(result.event, index + 1, index);
        });
        expect(allEvents(plain)).toEqual(allEvents(generated));
        for (let at = 0; at < plain.size; at++) {
          expect(Object.keys(plain.columnEvent(at))).toEqual(Object.keys(generated.columnEvent(at)));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("keeps every list element while the flat arrays grow", () => {
    const batch = new ColumnBatch();
    const read = canonicalColumnReader(batch);
    const expected: TraceEvent[] = [];
    for (let index = 0; index < 300; index++) {
      const event: TraceEvent = {
        kind: "op",
        span_id: "s1",
        op_name: "matmul",
        inputs: [`a${index}`, `b${index % 7}`, "c"],
        shape: [index + 1, 32, 3],
        dtype: "f32",
        device: "cpu",
        duration_ns: index,
        timestamp_ns: 0,
        input_storage_bytes: 0,
      };
      expected.push(event);
      const line = encodeTraceEvent(event);
      if (index % 2 === 0) expect(read(encoder.encode(line), 0, index + 1, index)).toBe(line.length);
      else batch.appendEvent(event, index + 1, index);
    }
    expect(allEvents(batch)).toEqual(expected);
  });

  it("takes back a refused event and is reused after clear", () => {
    const batch = new ColumnBatch();
    const read = canonicalColumnReader(batch);
    const start = encoder.encode(
      '{"kind":"span_start","id":"a","name":"n","start_ns":1,"span_kind":"op","measured":false}',
    );
    read(start, 0, 1, 0);
    read(start, 0, 2, 1);
    batch.dropLast();
    expect(batch.size).toBe(1);
    batch.clear();
    expect(batch.size).toBe(0);
    expect(batch.strings).toEqual([]);
    read(start, 0, 5, 4);
    expect(allEvents(batch)).toEqual([
      { kind: "span_start", id: "a", name: "n", start_ns: 1, span_kind: "op", measured: false },
    ]);
  });
});
