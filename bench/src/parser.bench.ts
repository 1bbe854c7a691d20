// @cg/parser throughput and streaming memory. Generates traces into the OS temp folder (never
// committed): ~100 MB for throughput, 1 GiB for the streaming summary's peak RSS.
//  1. validating read (readTraceEvents) vs a bare chunk-split + JSON.parse loop (the practical floor);
//  2. validating read vs readline + JSON.parse + zod TraceEvent.safeParse per line;
//  3. parseTrace (whole TraceDocument) in MB/s and against the bare loop;
//  4. summarizeStream of a 1 GiB trace in a child process: peak RSS of a plain `node` (no flags).
// Methodology: every contender reads the same file in 64 KiB reads and consumes every value (a
// checksum over each event's kind, so no result is dead). Each timed run is a fresh child process
// (no GC state or JIT feedback carried between contenders), warmed up on a 5 MB trace first, and
// the contenders are interleaved over several rounds in a rotating order; figures are medians.
import { spawnSync } from "node:child_process";
import { closeSync, createReadStream, existsSync, openSync, statSync, unlinkSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseTrace, readTraceEvents } from "@cg/parser";
import { encodeTraceEvent, TraceEvent } from "@cg/schema";
import { report } from "./harness.js";

const META =
  '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"run-1-0","correlation_id":"bench/update-1","entrypoint":"bench::train","phase":"train","timestamp":"2025-01-01T00:00:00.000Z","capture_step":1,"warmup_steps":0,"device":"cuda:0","measured_region_device_synchronized":true,"timing_mode":"host","tags":{"precision":"f32"}}';

/** Writes a session-shaped trace of about `targetBytes`: step spans with ops, tensors, memory and gradients. */
export function generateTrace(path: string, targetBytes: number): number {
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

const CHUNK_BYTES = 1 << 16; // the parser's own file read size

/** Subject: every validated event, consumed. */
async function validatingRead(path: string): Promise<number> {
  let checksum = 0;
  for await (const { event } of readTraceEvents(path)) checksum += event.kind.length;
  return checksum;
}

/** Subject: the whole document (every collection), consumed. */
async function documentRead(path: string): Promise<number> {
  const document = await parseTrace(path);
  let checksum = 0;
  for (const list of [document.ops, document.tensors, document.memory, document.gradients, document.edges]) {
    for (const event of list) checksum += event.kind.length;
  }
  for (const span of document.spans) checksum += "span_start".length + (span.closed ? "span_end".length : 0);
  for (const sample of document.device_memory) checksum += sample.kind.length;
  return checksum + 4; // "meta"
}

/** The practical floor: the same 64 KiB reads, split at LF, JSON.parse, no validation at all. */
async function bareJsonParse(path: string): Promise<number> {
  const handle = await open(path, "r");
  const buffer = new Uint8Array(CHUNK_BYTES);
  const decoder = new TextDecoder();
  let carry = "";
  let checksum = 0;
  try {
    while (true) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      const text =
        bytesRead === 0
          ? `${carry}${decoder.decode()}\n`
          : carry + decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
      const last = text.lastIndexOf("\n");
      let start = 0;
      while (start <= last) {
        const end = text.indexOf("\n", start);
        if (end > start) checksum += (JSON.parse(text.slice(start, end)) as { kind: string }).kind.length;
        start = end + 1;
      }
      carry = text.slice(last + 1);
      if (bytesRead === 0) break;
    }
  } finally {
    await handle.close();
  }
  return checksum;
}

/** The common hand-rolled reader: readline over a read stream, JSON.parse, zod safeParse. */
async function readlineZod(path: string): Promise<number> {
  let checksum = 0;
  const input = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const result = TraceEvent.safeParse(JSON.parse(line));
    if (!result.success) throw new Error("zod rejected a line");
    checksum += result.data.kind.length;
  }
  return checksum;
}

const contenders = {
  subject: validatingRead,
  document: documentRead,
  bare: bareJsonParse,
  zod: readlineZod,
} as const;
type ContenderName = keyof typeof contenders;

/** Child mode: warm up on a small trace, then time one contender on the large one. */
async function timedChild(name: ContenderName, path: string, warmUpPath: string) {
  const run = contenders[name];
  await run(warmUpPath);
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const checksum = await run(path);
  const cpu = process.cpuUsage(cpuStart);
  console.log(
    JSON.stringify({
      seconds: (performance.now() - start) / 1000,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      checksum,
    }),
  );
}

function runChild(env: Record<string, string>): string {
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`bench child failed: ${child.stderr}`);
  return child.stdout.trim().split("\n").pop() as string;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

async function throughput(path: string, warmUpPath: string, bytes: number) {
  const rounds = Number(process.env.CG_PARSER_BENCH_ROUNDS ?? 5);
  const names = Object.keys(contenders) as ContenderName[];
  const seconds = new Map<ContenderName, number[]>(names.map((name) => [name, []]));
  const cpuSeconds = new Map<ContenderName, number[]>(names.map((name) => [name, []]));
  const checksums = new Map<ContenderName, number>();
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < names.length; offset++) {
      const name = names[(round + offset) % names.length] as ContenderName;
      const result = JSON.parse(
        runChild({
          CG_PARSER_BENCH_CHILD: name,
          CG_PARSER_BENCH_FILE: path,
          CG_PARSER_BENCH_WARMUP: warmUpPath,
        }),
      ) as { seconds: number; cpuSeconds: number; checksum: number };
      seconds.get(name)?.push(result.seconds);
      cpuSeconds.get(name)?.push(result.cpuSeconds);
      checksums.set(name, result.checksum);
    }
  }
  const distinct = new Set(checksums.values());
  if (distinct.size !== 1)
    throw new Error(`contenders consumed different data: ${[...checksums].join(", ")}`);
  const megabytes = bytes / 1e6;
  // Ratios use CPU time (user + system of the child, GC threads included): on a shared, loaded
  // machine wall time mostly measures the neighbours. Wall-clock rates are printed beside them.
  const time = (name: ContenderName) => median(cpuSeconds.get(name) ?? []);
  const rate = (name: ContenderName) => megabytes / time(name);
  const wallRate = (name: ContenderName) => megabytes / median(seconds.get(name) ?? []);
  console.log(
    `generated trace: ${megabytes.toFixed(1)} MB; medians of ${rounds} interleaved runs, each in a fresh process (MB per CPU second; wall clock beside)`,
  );
  for (const name of names) {
    const all = (cpuSeconds.get(name) ?? []).map((value) => value.toFixed(2)).join(" ");
    console.log(
      `  ${name.padEnd(8)} ${rate(name).toFixed(1).padStart(6)} MB/s (${wallRate(name).toFixed(1)} MB/s wall)  CPU s: ${all}`,
    );
  }
  report(
    {
      title: "validating read (readTraceEvents) vs bare chunk-split + JSON.parse (ops = MB per CPU s)",
      subjectOpsPerSecond: rate("subject"),
      baselineOpsPerSecond: rate("bare"),
      ratio: time("bare") / time("subject"),
    },
    "speedup",
    0.8,
  );
  report(
    {
      title:
        "validating read (readTraceEvents) vs readline + JSON.parse + zod safeParse (ops = MB per CPU s)",
      subjectOpsPerSecond: rate("subject"),
      baselineOpsPerSecond: rate("zod"),
      ratio: time("zod") / time("subject"),
    },
    "speedup",
    3,
  );
  console.log(
    `  ceiling for any reader built on JSON.parse: bare loop vs readline + zod = ${(time("zod") / time("bare")).toFixed(2)}x`,
  );
  report(
    {
      title: "parseTrace (whole TraceDocument) vs bare chunk-split + JSON.parse (ops = MB per CPU s)",
      subjectOpsPerSecond: rate("document"),
      baselineOpsPerSecond: rate("bare"),
      ratio: time("bare") / time("document"),
    },
    "speedup",
  );
}

/**
 * The RSS child: a plain `node` (no flags, no tsx loader, whose worker thread would add its own heap
 * to the figure) that loads the built package, summarises the file while sampling RSS, and prints
 * one JSON line. The kernel's high-water mark (`maxRSS`, KiB) catches peaks between samples.
 */
const RSS_CHILD = `
const { summarizeStream } = require(process.env.CG_PARSER_ENTRY);
let peak = process.memoryUsage().rss;
const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
const start = performance.now();
summarizeStream(process.env.CG_PARSER_RSS_FILE).then((result) => {
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
  console.log(JSON.stringify({
    peak_rss: peak,
    seconds: (performance.now() - start) / 1000,
    events: result.events,
    trusted: result.health.trusted,
    exact: result.exact,
  }));
});
`;

function rssChild(path: string): {
  peak_rss: number;
  seconds: number;
  events: number;
  trusted: boolean;
  exact: boolean;
} {
  const child = spawnSync(process.execPath, ["-e", RSS_CHILD], {
    env: {
      ...process.env,
      CG_PARSER_ENTRY: createRequire(import.meta.url).resolve("@cg/parser"),
      CG_PARSER_RSS_FILE: path,
    },
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`RSS child failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").pop() as string);
}

const childContender = process.env.CG_PARSER_BENCH_CHILD as ContenderName | undefined;
if (childContender !== undefined) {
  await timedChild(
    childContender,
    process.env.CG_PARSER_BENCH_FILE as string,
    process.env.CG_PARSER_BENCH_WARMUP as string,
  );
  process.exit(0);
}

export default async function parserBench() {
  const small = join(tmpdir(), `cg-parser-bench-${process.pid}-100mb.jsonl`);
  const warmUp = join(tmpdir(), `cg-parser-bench-${process.pid}-5mb.jsonl`);
  const large = join(tmpdir(), `cg-parser-bench-${process.pid}-1gib.jsonl`);
  try {
    // Smaller sizes only for smoke tests of the bench itself; the targets are for the defaults.
    const bytes = generateTrace(small, Number(process.env.CG_PARSER_BENCH_MB ?? 100) * 1e6);
    generateTrace(warmUp, 5e6);
    await throughput(small, warmUp, bytes);
    unlinkSync(small);
    unlinkSync(warmUp);

    const largeBytes = generateTrace(large, Number(process.env.CG_PARSER_BENCH_RSS_MIB ?? 1024) * 1024 ** 2);
    const result = rssChild(large);
    const target = 200 * 1024 ** 2;
    console.log(
      `summarizeStream of a ${(statSync(large).size / 1024 ** 3).toFixed(2)} GiB trace (${result.events} events, trusted ${result.trusted}, exact ${result.exact}): ` +
        `peak RSS ${(result.peak_rss / 1024 ** 2).toFixed(1)} MiB (target ≤ 200 MiB: ${result.peak_rss <= target ? "met" : "NOT met"}), ` +
        `${(largeBytes / 1e6 / result.seconds).toFixed(1)} MB/s`,
    );
  } finally {
    for (const path of [small, warmUp, large]) if (existsSync(path)) unlinkSync(path);
  }
}
