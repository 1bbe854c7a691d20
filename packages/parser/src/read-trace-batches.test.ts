import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readTraceBatches, readTraceEvents, type TraceEventRecord } from "./index.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string }[];
};

async function collect<T>(iterable: AsyncIterable<T>): Promise<{ values: T[]; error: unknown }> {
  const values: T[] = [];
  try {
    for await (const value of iterable) values.push(value);
  } catch (error) {
    return { values, error };
  }
  return { values, error: undefined };
}

describe("readTraceBatches", () => {
  it.each(manifest.fixtures.map((entry) => [entry.file] as const))(
    "gives readTraceEvents' records and error for %s",
    async (file) => {
      const path = join(fixturesDir, file);
      for (const mode of ["strict", "lenient"] as const) {
        const single = await collect(readTraceEvents(path, { mode }));
        const batched = await collect(readTraceBatches(path, { mode, batchSize: 2 }));
        const flat: TraceEventRecord[] = [];
        for (const batch of batched.values) {
          expect(batch.length).toBeGreaterThan(0);
          expect(batch.length).toBeLessThanOrEqual(2);
          for (const record of batch) flat.push(record);
        }
        expect(flat).toEqual(single.values);
        expect(batched.error).toEqual(single.error);
      }
    },
  );

  it("cuts batches at any size, over any chunking of the bytes", async () => {
    const bytes = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"));
    const expected = (await collect(readTraceEvents(bytes))).values;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 8 }),
        async (batchSize, cuts) => {
          const chunks: Uint8Array[] = [];
          let at = 0;
          for (let index = 0; at < bytes.length; index++) {
            const size = cuts[index % cuts.length] as number;
            chunks.push(bytes.subarray(at, at + size));
            at += size;
          }
          const batches = (await collect(readTraceBatches(chunks, { batchSize }))).values;
          expect(batches.every((batch) => batch.length <= batchSize)).toBe(true);
          expect(batches.flat()).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("closes the source when the consumer stops early", async () => {
    let closed = false;
    const bytes = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"));
    async function* chunks() {
      try {
        for (let at = 0; at < bytes.length; at += 64) yield bytes.subarray(at, at + 64);
      } finally {
        closed = true;
      }
    }
    for await (const _ of readTraceBatches(chunks(), { batchSize: 1 })) break;
    expect(closed).toBe(true);
  });

  it("keeps default batches small enough that their events die young", async () => {
    // 1,300 ops of one span in one chunk: without a bound the whole chunk would be one batch.
    const lines = [
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"2026-01-01T00:00:00Z","capture_step":0,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}',
      '{"kind":"span_start","id":"s","name":"step","start_ns":1,"span_kind":"step"}',
    ];
    for (let op = 0; op < 1300; op++) {
      lines.push(
        `{"kind":"op","span_id":"s","op_name":"add","inputs":[],"output_shape":[2],"dtype":"f32","device":"cpu","start_ns":${op + 2},"duration_ns":1}`,
      );
    }
    const text = `${lines.join("\n")}\n`;
    const expected = (await collect(readTraceEvents({ text }, { mode: "lenient" }))).values;
    const batches = (await collect(readTraceBatches({ text }, { mode: "lenient" }))).values;
    expect(expected.length).toBeGreaterThan(1300);
    expect(batches.map((batch) => batch.length)).toEqual([512, 512, expected.length - 1024]);
    expect(batches.flat()).toEqual(expected);
  });

  it("refuses a batch size below 1", async () => {
    await expect(collect(readTraceBatches({ text: "" }, { batchSize: 0 }))).resolves.toMatchObject({
      error: expect.any(RangeError),
    });
  });
});
