// readColumnBatches against readTraceEvents: on every fixture, both modes, any batch size and any
// chunking of the bytes, the events rebuilt from the columns are the event reader's, with the same
// line numbers, record indexes, diagnostics and final error.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ColumnBatch, EVENT_KINDS } from "@cg/schema";
import { fixturesDir } from "@cg/tooling-vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readColumnBatches, readTraceEvents, type TraceEventRecord, type TraceParseError } from "./index.js";
import type { TraceSource } from "./trace-source.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string }[];
};

interface Read {
  records: TraceEventRecord[];
  diagnostics: string[];
  error: unknown;
}

function records(batch: ColumnBatch, into: TraceEventRecord[]): void {
  for (let at = 0; at < batch.size; at++) {
    into.push({
      event: batch.event(at),
      line: batch.lines[at] as number,
      index: batch.indexes[at] as number,
    });
  }
}

async function read(
  iterate: (onDiagnostic: (error: TraceParseError) => void) => AsyncIterable<unknown>,
  take: (value: unknown, into: TraceEventRecord[]) => void,
): Promise<Read> {
  const result: Read = { records: [], diagnostics: [], error: undefined };
  try {
    for await (const value of iterate((error) =>
      result.diagnostics.push(`${error.code}@${error.line}: ${error.message}`),
    ))
      take(value, result.records);
  } catch (error) {
    result.error = error;
  }
  return result;
}

function readEvents(source: TraceSource, mode: "strict" | "lenient", file?: string): Promise<Read> {
  return read(
    (onDiagnostic) =>
      readTraceEvents(source, { mode, onDiagnostic, ...(file === undefined ? {} : { file }) }),
    (record, into) => into.push(record as TraceEventRecord),
  );
}

function readColumns(
  source: TraceSource,
  mode: "strict" | "lenient",
  batchSize: number,
  file?: string,
): Promise<Read> {
  return read(
    (onDiagnostic) =>
      readColumnBatches(source, { mode, onDiagnostic, batchSize, ...(file === undefined ? {} : { file }) }),
    (batch, into) => {
      expect((batch as ColumnBatch).size).toBeLessThanOrEqual(batchSize);
      records(batch as ColumnBatch, into);
    },
  );
}

describe("readColumnBatches", () => {
  it("numbers kinds as EVENT_KINDS does", async () => {
    for await (const batch of readColumnBatches(join(fixturesDir, "valid/golden-train.jsonl"))) {
      expect(batch.columns.map((columns) => columns.kind)).toEqual([...EVENT_KINDS]);
    }
  });

  it.each(manifest.fixtures.map((entry) => [entry.file] as const))(
    "gives readTraceEvents' records, diagnostics and error for %s",
    async (file) => {
      const path = join(fixturesDir, file);
      for (const mode of ["strict", "lenient"] as const) {
        const expected = await readEvents(path, mode);
        for (const batchSize of [1, 3, 8192]) {
          const columns = await readColumns(path, mode, batchSize);
          expect(columns.records).toEqual(expected.records);
          expect(columns.diagnostics).toEqual(expected.diagnostics);
          expect(columns.error).toEqual(expected.error);
          if (expected.error !== undefined) expect(String(columns.error)).toBe(String(expected.error));
        }
      }
    },
  );

  it("reads any chunking of the bytes of any fixture as the event reader does", async () => {
    const files = manifest.fixtures.map((entry) => readFileSync(join(fixturesDir, entry.file)));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: files.length - 1 }),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 8 }),
        fc.constantFrom("strict" as const, "lenient" as const),
        async (which, batchSize, cuts, mode) => {
          const bytes = files[which] as Buffer;
          const chunks: Uint8Array[] = [];
          for (let at = 0, index = 0; at < bytes.length; index++) {
            const size = cuts[index % cuts.length] as number;
            chunks.push(bytes.subarray(at, at + size));
            at += size;
          }
          const expected = await readEvents([bytes], mode, "f");
          const columns = await readColumns(chunks, mode, batchSize, "f");
          expect(columns.records).toEqual(expected.records);
          expect(columns.diagnostics).toEqual(expected.diagnostics);
          expect(String(columns.error)).toBe(String(expected.error));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("delivers only the kinds asked for, checking span order all the same", async () => {
    const path = join(fixturesDir, "valid/golden-train.jsonl");
    const kinds = ["op", "gradient"] as const;
    const expected = await read(
      () => readTraceEvents(path, { kinds }),
      (record, into) => into.push(record as TraceEventRecord),
    );
    const columns = await read(
      () => readColumnBatches(path, { kinds }),
      (batch, into) => records(batch as ColumnBatch, into),
    );
    expect(columns.records.length).toBeGreaterThan(1);
    expect(columns.records).toEqual(expected.records);
  });
});
