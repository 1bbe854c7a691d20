// A line the column decoder refused is tried by it once on its own and then goes straight to the
// text tiers (issue #13): counted through spies on @cg/schema/core's entry points (the parser's import).
import * as schema from "@cg/schema/core";
import { describe, expect, it, vi } from "vitest";
import { parseTrace } from "./index.js";

/** Where each line the column reader was asked to read on its own started. */
const readStarts: number[] = [];

vi.mock("@cg/schema/core", async (importOriginal) => {
  const original = await importOriginal<typeof schema>();
  return {
    ...original,
    decodeTraceLine: vi.fn(original.decodeTraceLine),
    decodedColumnReader: (batch: schema.ColumnBatch) => {
      const reader = original.decodedColumnReader(batch);
      const counted = (bytes: Uint8Array, start: number, line: number, index: number): number => {
        readStarts.push(start);
        return reader(bytes, start, line, index);
      };
      return Object.assign(counted, { forget: () => reader.forget(), run: reader.run });
    },
  };
});

const META =
  '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}';
const START =
  '{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}';
const REORDERED_END = '{"id":"s1","kind":"span_end","duration_ns":10}';

describe("a line from bytes that is not canonical", () => {
  it("is tried by the canonical reader once and decoded by the text tiers without it", async () => {
    const decodeTraceLine = vi.mocked(schema.decodeTraceLine);
    decodeTraceLine.mockClear();
    readStarts.length = 0;
    const bytes = new TextEncoder().encode(`${META}\n${START}\n${REORDERED_END}\n`);
    const document = await parseTrace(bytes);
    expect(document.spans[0]).toMatchObject({ id: "s1", closed: true, duration_ns: 10 });
    // Line 1 (the meta line) is decoded as text before the byte loop; line 2 joins a run; the run
    // stops at line 3, which the reader then tries on its own once, never again.
    expect(readStarts).toEqual([META.length + 1 + START.length + 1]);
    // the reordered line goes to the text tiers told that the canonical tier refused it
    expect(decodeTraceLine.mock.calls).toEqual([
      [META, undefined],
      [REORDERED_END, { canonicalTried: true }],
    ]);
  });

  it("still reports a line that is not UTF-8 by its number", async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode(`${META}\n`), 0xff, 0x7b, 0x0a]);
    await expect(parseTrace(bytes)).rejects.toMatchObject({ code: "invalid_utf8", line: 2 });
  });
});
