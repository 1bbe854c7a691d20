// The `runs` row of the single-pass ingest (events folded into the parser's summarizer as they are
// written) against the figures of a separate summarizeStream pass over the same file, which is how
// the row was made before: every summary and health column must be the same.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summarizeStream } from "@cg/parser";
import { afterAll, describe, expect, test } from "vitest";
import { openTraceDatabase } from "../src/index.js";
import { manyChunksTrace, readableFixtures, writeWriterTrace } from "./trace-fixtures.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-single-pass-"));
const writerTrace = writeWriterTrace(join(workDir, "writer.jsonl"));
const manyChunks = join(workDir, "many-chunks.jsonl");
writeFileSync(manyChunks, manyChunksTrace(3000));

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const SUMMARY_COLUMNS =
  "run_id, file, trusted, error_codes, warning_codes, events, measured_ns, op_count, span_count, root_span_count, max_depth, alloc_count, free_count, peak_bytes, peak_device";

describe.each([...readableFixtures, writerTrace, manyChunks])("%s", (file) => {
  test("the runs row equals a separate summarizeStream pass", async () => {
    const streamed = await summarizeStream(file).catch((error: Error) => error);
    if (file === manyChunks || file === writerTrace) expect(streamed).not.toBeInstanceOf(Error);
    const database = await openTraceDatabase({ traces: [file] });
    try {
      const { rows } = await database.query(`SELECT ${SUMMARY_COLUMNS} FROM runs`);
      if (streamed instanceof Error) {
        expect(rows).toEqual([]);
        expect(database.report.rejected.map((rejected) => rejected.message)).toEqual([streamed.message]);
        return;
      }
      const codes = (severity: string) =>
        streamed.health.issues.filter((issue) => issue.severity === severity).map((issue) => issue.code);
      const { summary, memory } = streamed;
      expect(rows).toEqual([
        [
          streamed.run.run_id,
          file,
          streamed.health.trusted,
          codes("error"),
          codes("warning"),
          BigInt(streamed.events),
          BigInt(summary.total_ns),
          BigInt(summary.op_count),
          BigInt(summary.span_count),
          BigInt(summary.root_span_count),
          summary.max_depth,
          BigInt(summary.alloc_count),
          BigInt(summary.free_count),
          BigInt(memory.peak_bytes),
          memory.peak_device === "" ? null : memory.peak_device,
        ],
      ]);
    } finally {
      database.close();
    }
  });
});
