// The `runs` row of the single-pass ingest (events folded into the parser's summarizer as they are
// written) against the figures of a separate summarizeStream pass over the same file, which is how
// the row was made before: every summary and health column must be the same.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summarizeStream } from "@cg/parser";
import { afterAll, describe, expect, test } from "vitest";
import { openTraceDatabase } from "../src/index.js";
import { readableFixtures, writeWriterTrace } from "./trace-fixtures.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-single-pass-"));
const writerTrace = writeWriterTrace(join(workDir, "writer.jsonl"));
const manyChunks = join(workDir, "many-chunks.jsonl");
writeFileSync(manyChunks, manyChunksTrace(3000));

/** Layers of ops and alloc/free pairs, thousands of rows per table (several data chunks). */
function manyChunksTrace(layers: number): string {
  const lines = [
    '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"many","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cuda:0","timing_mode":"host","tags":{"k":"v"}}',
    '{"kind":"span_start","id":"root","name":"train","start_ns":0,"span_kind":"function","measured":true}',
  ];
  let clock = 1;
  for (let layer = 0; layer < layers; layer++) {
    const step = ["forward", "backward", "optimizer"][layer % 3];
    lines.push(
      `{"kind":"span_start","id":"l${layer}","parent_id":"root","name":"layer-${layer % 7}","start_ns":${clock},"span_kind":"module","measured":false,"step":"${step}"}`,
    );
    for (let op = 0; op < 2; op++) {
      clock += 10;
      lines.push(
        `{"kind":"op","span_id":"l${layer}","op_name":"matmul","inputs":["t${layer}a","t${layer}b"],"output":"t${layer}-${op}","shape":[64,${layer + 1}],"dtype":"f32","device":"cuda:0","duration_ns":${5 + (layer % 11)},"timestamp_ns":${clock}}`,
        `{"kind":"memory","timestamp_ns":${clock},"tensor_id":"t${layer}-${op}","span_id":"l${layer}","device":"cuda:0","bytes":${256 * (layer + 1)},"action":"alloc","dtype":"f32"}`,
      );
    }
    clock += 5;
    lines.push(
      `{"kind":"memory","timestamp_ns":${clock},"tensor_id":"t${layer}-0","span_id":"l${layer}","device":"cuda:0","bytes":${256 * (layer + 1)},"action":"free","dtype":"f32"}`,
      `{"kind":"span_end","id":"l${layer}","duration_ns":${clock - 10 * layer}}`,
    );
  }
  lines.push(`{"kind":"span_end","id":"root","duration_ns":${clock + 1}}`);
  return `${lines.join("\n")}\n`;
}
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
