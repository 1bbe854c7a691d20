// The reading side of an ingest keeps every span until the end of its trace (the span tree needs
// them all), so what it holds per span decides how its heap grows with the trace. It holds them in
// typed columns: the JS heap (what V8 sizes its next collection from) must not grow by an object
// per span. Held as event objects, records and maps, spans cost about 700 bytes of heap each, and
// the reading thread of a 1 GiB ingest grew to about 150 MB.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, expect, test } from "vitest";
import { TraceIngest, type Writers } from "../src/ingest-trace.js";
import { TableRows } from "../src/table-rows.js";
import { TABLES } from "../src/tables.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-heap-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** `spans` spans under one root, each with a name of its own and two ops, as a writer lays them out. */
function spansTrace(spans: number): string {
  const lines = [
    '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"heap","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cuda:0","timing_mode":"host","tags":{}}',
    '{"kind":"span_start","id":"root","name":"train","start_ns":0,"span_kind":"function","measured":true}',
  ];
  let clock = 1;
  for (let span = 0; span < spans; span++) {
    lines.push(
      `{"kind":"span_start","id":"s${span}","parent_id":"root","name":"update-${span}/layer-${span % 7}","start_ns":${clock},"span_kind":"module","measured":false,"step":"forward"}`,
    );
    for (let op = 0; op < 2; op++) {
      clock += 10;
      lines.push(
        `{"kind":"op","span_id":"s${span}","op_name":"matmul","inputs":["a","b"],"shape":[64,128],"dtype":"f32","device":"cuda:0","duration_ns":7,"timestamp_ns":${clock}}`,
      );
    }
    lines.push(`{"kind":"span_end","id":"s${span}","duration_ns":25}`);
    clock += 5;
  }
  lines.push(`{"kind":"span_end","id":"root","duration_ns":${clock}}`);
  return `${lines.join("\n")}\n`;
}

/** The most heap in use, after a full collection, at the end of any of the ingest's batches. */
async function peakHeapOfIngest(spans: number): Promise<number> {
  const file = join(workDir, `spans-${spans}.jsonl`);
  writeFileSync(file, spansTrace(spans));
  const writers = {} as Writers;
  // Chunks are dropped as they fill: only what the reading side holds stays.
  for (const table of TABLES) writers[table.name] = new TableRows(table, () => {}, { detach: false });
  let batches = 0;
  let peak = 0;
  const ingest = new TraceIngest(writers, {
    removeRun: () => {},
    afterBatch: () => {
      if (++batches % 8 === 0) {
        collectGarbage();
        peak = Math.max(peak, getHeapStatistics().used_heap_size);
      }
      return undefined;
    },
  });
  const outcome = await ingest.ingest(file);
  expect(outcome).toMatchObject({ run_id: "heap" });
  return peak;
}

test("the reading side holds no object per span while it reads a trace", async () => {
  await peakHeapOfIngest(2_000); // warm-up: compiled code and the modules' own state
  const small = await peakHeapOfIngest(10_000);
  const large = await peakHeapOfIngest(50_000);
  const bytesPerSpan = (large - small) / 40_000;
  expect(bytesPerSpan).toBeLessThan(64);
}, 60_000);
