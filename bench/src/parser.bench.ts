// @cg/parser throughput and streaming memory. Generates traces into the OS temp folder (never
// committed): ~100 MB for throughput, 1 GiB for the streaming summary's peak RSS.
//  1. validating read (readTraceEvents) vs a bare chunk-split + JSON.parse loop (the practical floor);
//  2. validating read vs readline + JSON.parse + zod TraceEvent.safeParse per line;
//  3. summarizeStream of a 1 GiB trace in a child process, sampling process.memoryUsage().rss.
import { spawnSync } from "node:child_process";
import { closeSync, createReadStream, existsSync, openSync, statSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseTrace, readTraceEvents, summarizeStream } from "@cg/parser";
import { encodeTraceEvent, TraceEvent } from "@cg/schema";
import { report } from "./harness.js";

const META =
  '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"run-1-0","correlation_id":"bench/update-1","entrypoint":"bench::train","phase":"train","timestamp":"2025-01-01T00:00:00.000Z","capture_step":1,"warmup_steps":0,"device":"cuda:0","measured_region_device_synchronized":true,"timing_mode":"host","tags":{"precision":"f32"}}';

/** Writes a session-shaped trace of about `targetBytes`: step spans with ops, tensors, memory and gradients. */
function generateTrace(path: string, targetBytes: number): number {
  const file = openSync(path, "w");
  let written = 0;
  let buffer: string[] = [];
  let bufferBytes = 0;
  const emit = (line: string) => {
    buffer.push(line);
    bufferBytes += line.length + 1;
    if (bufferBytes > 1 << 20) flush();
  };
  const flush = () => {
    const text = `${buffer.join("\n")}\n`;
    writeSync(file, text);
    written += Buffer.byteLength(text);
    buffer = [];
    bufferBytes = 0;
  };
  emit(META);
  emit(
    '{"kind":"span_start","id":"s1","name":"bench::train","start_ns":0,"span_kind":"function","measured":false}',
  );
  emit(
    '{"kind":"span_start","id":"s2","parent_id":"s1","name":"bench/update-1","start_ns":1,"span_kind":"function","measured":true}',
  );
  let clock = 10;
  let span = 3;
  let tensor = 0;
  const steps = ["forward", "backward", "optimizer"] as const;
  while (written + bufferBytes < targetBytes) {
    const id = `s${span++}`;
    const start = clock;
    emit(
      encodeTraceEvent({
        kind: "span_start",
        id,
        parent_id: "s2",
        name: `bench/update-1/layer-${span}`,
        start_ns: start,
        span_kind: "module",
        measured: false,
        step: steps[span % 3] as (typeof steps)[number],
      }),
    );
    for (let index = 0; index < 40; index++) {
      clock += 100;
      const output = `t${tensor++}`;
      emit(
        encodeTraceEvent({
          kind: "op",
          span_id: id,
          op_name: index % 2 === 0 ? "matmul" : "add",
          inputs: [`t${tensor - 2}`, `t${tensor - 3}`],
          output,
          shape: [64, 128],
          dtype: "f32",
          device: "cuda:0",
          duration_ns: 90,
          timestamp_ns: clock,
          storage_bytes: 32768,
          input_storage_bytes: 65536,
        }),
      );
      emit(
        encodeTraceEvent({
          kind: "tensor",
          span_id: id,
          tensor_id: output,
          shape: [64, 128],
          dtype: "f32",
          device: "cuda:0",
          requires_grad: false,
          storage_bytes: 32768,
          category: "activation",
        }),
      );
      const memory = {
        kind: "memory" as const,
        timestamp_ns: clock,
        tensor_id: output,
        span_id: id,
        op_name: "matmul",
        device: "cuda:0",
        bytes: 32768,
        shape: [64, 128],
        dtype: "f32",
        category: "activation" as const,
      };
      emit(encodeTraceEvent({ ...memory, action: "alloc" }));
      emit(encodeTraceEvent({ ...memory, timestamp_ns: clock + 50, action: "free" }));
    }
    emit(
      encodeTraceEvent({
        kind: "gradient",
        event_id: `gradient-${span}`,
        root: "vb",
        key: `w${span}`,
        state: "present",
        norm: 0.25,
      }),
    );
    clock += 10;
    emit(encodeTraceEvent({ kind: "span_end", id, duration_ns: clock - start }));
  }
  emit(`{"kind":"span_end","id":"s2","duration_ns":${clock}}`);
  emit(`{"kind":"span_end","id":"s1","duration_ns":${clock + 1}}`);
  flush();
  closeSync(file);
  return written;
}

async function validatingRead(path: string): Promise<number> {
  let count = 0;
  for await (const _ of readTraceEvents(path)) count++;
  return count;
}

/** The practical floor: chunk-split + JSON.parse, no validation at all. */
async function bareJsonParse(path: string): Promise<number> {
  const decoder = new TextDecoder();
  let carry = "";
  let count = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const text = carry + decoder.decode(chunk as Buffer, { stream: true });
    const last = text.lastIndexOf("\n");
    let start = 0;
    while (start <= last) {
      const end = text.indexOf("\n", start);
      if (end > start) {
        JSON.parse(text.slice(start, end));
        count++;
      }
      start = end + 1;
    }
    carry = text.slice(last + 1);
  }
  return count;
}

async function readlineZod(path: string): Promise<number> {
  let count = 0;
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    if (!TraceEvent.safeParse(JSON.parse(line)).success) throw new Error("zod rejected a line");
    count++;
  }
  return count;
}

/** Best of `runs` wall-clock times, in seconds; runs of the contenders are interleaved by the caller. */
async function time(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return (performance.now() - start) / 1000;
}

async function throughput(path: string, bytes: number) {
  const best = {
    subject: Number.POSITIVE_INFINITY,
    bare: Number.POSITIVE_INFINITY,
    zod: Number.POSITIVE_INFINITY,
  };
  const counts = [await validatingRead(path), await bareJsonParse(path)];
  if (counts[0] !== counts[1]) throw new Error(`event counts differ: ${counts.join(" vs ")}`);
  for (let round = 0; round < 3; round++) {
    best.subject = Math.min(best.subject, await time(() => validatingRead(path)));
    best.bare = Math.min(best.bare, await time(() => bareJsonParse(path)));
    if (round < 2) best.zod = Math.min(best.zod, await time(() => readlineZod(path)));
  }
  const megabytes = bytes / 1e6;
  console.log(`generated trace: ${megabytes.toFixed(1)} MB, ${counts[0]} events`);
  report(
    {
      title: "validating read (readTraceEvents) vs bare chunk-split + JSON.parse (ops = MB/s)",
      subjectOpsPerSecond: megabytes / best.subject,
      baselineOpsPerSecond: megabytes / best.bare,
      ratio: best.bare / best.subject,
    },
    "speedup",
    0.8,
  );
  report(
    {
      title: "validating read (readTraceEvents) vs readline + JSON.parse + zod safeParse (ops = MB/s)",
      subjectOpsPerSecond: megabytes / best.subject,
      baselineOpsPerSecond: megabytes / best.zod,
      ratio: best.zod / best.subject,
    },
    "speedup",
    3,
  );
  const documentSeconds = await time(() => parseTrace(path));
  console.log(`  parseTrace (full TraceDocument): ${(megabytes / documentSeconds).toFixed(1)} MB/s`);
}

/** Child mode: summarise the file, sampling RSS, and print one JSON line. */
async function rssChild(path: string) {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const start = performance.now();
  const result = await summarizeStream(path);
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  console.log(
    JSON.stringify({
      peak_rss: peak,
      seconds: (performance.now() - start) / 1000,
      events: result.events,
      trusted: result.health.trusted,
      exact: result.exact,
      peak_bytes: String(result.summary.peak_bytes),
    }),
  );
}

const childPath = process.env.CG_PARSER_RSS_CHILD;
if (childPath !== undefined) {
  await rssChild(childPath);
  process.exit(0);
}

export default async function parserBench() {
  const small = join(tmpdir(), `cg-parser-bench-${process.pid}-100mb.jsonl`);
  const large = join(tmpdir(), `cg-parser-bench-${process.pid}-1gib.jsonl`);
  try {
    const bytes = generateTrace(small, 100e6);
    await throughput(small, bytes);
    unlinkSync(small);

    const largeBytes = generateTrace(large, 1024 ** 3);
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
      env: { ...process.env, CG_PARSER_RSS_CHILD: large },
      encoding: "utf8",
      maxBuffer: 1 << 20,
    });
    if (child.status !== 0) throw new Error(`RSS child failed: ${child.stderr}`);
    const result = JSON.parse(child.stdout.trim().split("\n").pop() as string) as {
      peak_rss: number;
      seconds: number;
      events: number;
      trusted: boolean;
      exact: boolean;
    };
    const target = 200 * 1024 ** 2;
    console.log(
      `summarizeStream of a ${(statSync(large).size / 1024 ** 3).toFixed(2)} GiB trace (${result.events} events, trusted ${result.trusted}, exact ${result.exact}): ` +
        `peak RSS ${(result.peak_rss / 1024 ** 2).toFixed(1)} MiB (target ≤ 200 MiB: ${result.peak_rss <= target ? "met" : "NOT met"}), ` +
        `${(largeBytes / 1e6 / result.seconds).toFixed(1)} MB/s`,
    );
  } finally {
    for (const path of [small, large]) if (existsSync(path)) unlinkSync(path);
  }
}
