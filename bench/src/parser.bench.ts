// @cg/parser throughput and streaming memory. Generates traces into the OS temp folder (never
// committed): ~100 MB for throughput, 1 GiB for the streaming summary's peak RSS.
//  1. validating read (readTraceEvents) vs a bare chunk-split + JSON.parse loop (no validation);
//  2. validating read vs readline + JSON.parse + zod TraceEvent.safeParse per line;
//  3. parseTrace (whole TraceDocument) in MB/s and against the bare loop;
//  4. the same trace written non-canonically (a space after every comma, as another writer might):
//     validating read vs the bare loop on that file — the text-tier path, which canonical files skip;
//  5. summarizeStream of a 1 GiB trace in a child process: peak RSS of a plain `node` (no flags).
// Methodology: every contender consumes every value (a checksum over each event's kind, so no
// result is dead). The baselines read 64 KiB at a time (Node's stream default, which measured
// faster for both of them than 256 KiB or 1 MiB); the parser reads 256 KiB, its own read size. Each
// timed run is a fresh child process (no GC state or JIT feedback carried between contenders),
// warmed up on a 5 MB trace first, and the contenders are interleaved over several rounds in a
// rotating order; figures are medians.
import { spawnSync } from "node:child_process";
import { createReadStream, existsSync, statSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseTrace, readTraceEvents } from "@cg/parser";
import { TraceEvent } from "@cg/schema";
import { report } from "./harness.js";
import { generateWriterShapedTrace } from "./support/writer-shaped-trace.js";

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
  spacedSubject: validatingRead,
  spacedBare: bareJsonParse,
} as const;
/** Contenders that read the non-canonical copy of the trace. */
const SPACED: readonly ContenderName[] = ["spacedSubject", "spacedBare"];
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

/** The trace with a space after every comma between members: valid, not canonical. */
async function writeSpacedCopy(path: string, target: string): Promise<void> {
  const { createWriteStream } = await import("node:fs");
  const output = createWriteStream(target);
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (!output.write(`${line.replace(/,"/g, ', "')}\n`))
      await new Promise<void>((resolve) => output.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    output.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}

async function throughput(path: string, spacedPath: string, warmUpPath: string, bytes: number) {
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
          CG_PARSER_BENCH_FILE: SPACED.includes(name) ? spacedPath : path,
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
  const spacedMegabytes = statSync(spacedPath).size / 1e6;
  const sizeOf = (name: ContenderName) => (SPACED.includes(name) ? spacedMegabytes : megabytes);
  // Ratios use CPU time (user + system of the child, GC threads included): on a shared, loaded
  // machine wall time mostly measures the neighbours. Wall-clock rates are printed beside them.
  const time = (name: ContenderName) => median(cpuSeconds.get(name) ?? []);
  const rate = (name: ContenderName) => sizeOf(name) / time(name);
  const wallRate = (name: ContenderName) => sizeOf(name) / median(seconds.get(name) ?? []);
  console.log(
    `generated trace: ${megabytes.toFixed(1)} MB (non-canonical copy ${spacedMegabytes.toFixed(1)} MB); medians of ${rounds} interleaved runs, each in a fresh process (MB per CPU second; wall clock beside)`,
  );
  for (const name of names) {
    const all = (cpuSeconds.get(name) ?? []).map((value) => value.toFixed(2)).join(" ");
    console.log(
      `  ${name.padEnd(13)} ${rate(name).toFixed(1).padStart(6)} MB/s (${wallRate(name).toFixed(1)} MB/s wall)  CPU s: ${all}`,
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
    `  for comparison, the bare JSON.parse loop vs readline + zod = ${(time("zod") / time("bare")).toFixed(2)}x (the ceiling of any reader that parses every line with JSON.parse)`,
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
  report(
    {
      title:
        "non-canonical copy (a space after each comma): validating read vs bare chunk-split + JSON.parse (ops = MB per CPU s)",
      subjectOpsPerSecond: rate("spacedSubject"),
      baselineOpsPerSecond: rate("spacedBare"),
      ratio: time("spacedBare") / time("spacedSubject"),
    },
    "speedup",
    0.8,
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
  const spaced = join(tmpdir(), `cg-parser-bench-${process.pid}-100mb-spaced.jsonl`);
  const warmUp = join(tmpdir(), `cg-parser-bench-${process.pid}-5mb.jsonl`);
  const large = join(tmpdir(), `cg-parser-bench-${process.pid}-1gib.jsonl`);
  try {
    // Smaller sizes only for smoke tests of the bench itself; the targets are for the defaults.
    const bytes = generateWriterShapedTrace(small, Number(process.env.CG_PARSER_BENCH_MB ?? 100) * 1e6);
    generateWriterShapedTrace(warmUp, 5e6);
    await writeSpacedCopy(small, spaced);
    await throughput(small, spaced, warmUp, bytes);
    unlinkSync(small);
    unlinkSync(spaced);
    unlinkSync(warmUp);

    const largeBytes = generateWriterShapedTrace(
      large,
      Number(process.env.CG_PARSER_BENCH_RSS_MIB ?? 1024) * 1024 ** 2,
    );
    const result = rssChild(large);
    const target = 200 * 1024 ** 2;
    console.log(
      `summarizeStream of a ${(statSync(large).size / 1024 ** 3).toFixed(2)} GiB trace (${result.events} events, trusted ${result.trusted}, exact ${result.exact}): ` +
        `peak RSS ${(result.peak_rss / 1024 ** 2).toFixed(1)} MiB (target ≤ 200 MiB: ${result.peak_rss <= target ? "met" : "NOT met"}), ` +
        `${(largeBytes / 1e6 / result.seconds).toFixed(1)} MB/s`,
    );
  } finally {
    for (const path of [small, spaced, warmUp, large]) if (existsSync(path)) unlinkSync(path);
  }
}
