// @cg/parser throughput and streaming memory. Generates traces into the OS temp folder (never
// committed): ~100 MB for throughput, 1 GiB for the streaming summary's peak RSS.
//  1. readTraceEvents, consuming every field of every event, vs the same consumption behind
//     a bare chunk-split + JSON.parse loop (no validation), readline + JSON.parse + a plain zod 4
//     schema (support/plain-zod-schema.ts), and DuckDB's read_json of the file into a table of all
//     columns (one thread, and its default threads);
//  2. parseTrace (whole TraceDocument, every collection consumed) against the bare loop;
//  3. the same trace written non-canonically (a space after every comma, as another writer might):
//     readTraceEvents vs the bare loop on that file: the text-tier path, which canonical files skip;
//  4. summarizeStream of a 1 GiB trace in a child process: peak RSS of a plain `node` (no flags).
// Method: every reader folds every field of every event into a checksum (support/consume-event.ts)
// and the checksums must agree; DuckDB's table must hold every event. The baselines read 64 KiB at a
// time (Node's stream default, which measured faster for both of them than 256 KiB or 1 MiB).
// Each timed read is a fresh child process, warmed up on a 5 MB trace first, the contenders
// interleaved over rounds in a rotating order (process-harness.ts); figures are medians of
// per-round ratios of process CPU time (all threads), wall clock printed beside.
import { spawnSync } from "node:child_process";
import { createReadStream, existsSync, statSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseTrace, readTraceBatches, readTraceEvents } from "@cg/parser";
import { type ContenderFactory, compareInProcesses } from "./process-harness.js";
import {
  booleanTerm,
  type Consumed,
  eventTerm,
  numberTerm,
  optionalStringTerm,
  stringTerm,
} from "./support/consume-event.js";
import { PlainTraceEvent } from "./support/plain-zod-schema.js";
import { generateWriterShapedTrace, sharedWriterShapedTrace } from "./support/writer-shaped-trace.js";

const CHUNK_BYTES = 1 << 16; // the baselines' read size

/** Subject: every validated event, every field consumed. */
export async function validatingRead(path: string): Promise<Consumed> {
  let checksum = 0;
  let events = 0;
  for await (const { event } of readTraceEvents(path)) {
    checksum = (checksum + eventTerm(event)) | 0;
    events++;
  }
  return { checksum, events };
}

/** Subject: the batch iterator, every field of every event consumed. */
export async function batchRead(path: string): Promise<Consumed> {
  let checksum = 0;
  let events = 0;
  for await (const batch of readTraceBatches(path)) {
    for (let index = 0; index < batch.length; index++) {
      checksum = (checksum + eventTerm((batch[index] as { event: unknown }).event)) | 0;
    }
    events += batch.length;
  }
  return { checksum, events };
}

/** Subject: the whole document, every collection and field consumed. */
async function documentRead(path: string): Promise<Consumed> {
  const document = await parseTrace(path);
  let checksum = 0;
  let events = 1;
  for (const list of [
    document.ops,
    document.tensors,
    document.memory,
    document.device_memory,
    document.gradients,
    document.edges,
  ]) {
    for (const event of list) checksum = (checksum + eventTerm(event)) | 0;
    events += list.length;
  }
  for (const span of document.spans) {
    checksum += stringTerm(span.id) + optionalStringTerm(span.parent_id) + stringTerm(span.name);
    checksum += stringTerm(span.kind) + booleanTerm(span.measured) + numberTerm(span.start_ns);
    checksum = (checksum + booleanTerm(span.closed) + numberTerm(span.duration_ns)) | 0;
    checksum = (checksum + optionalStringTerm(span.step)) | 0;
    events += span.closed ? 2 : 1;
  }
  return { checksum, events };
}

/** The practical floor: the same 64 KiB reads, split at LF, JSON.parse, no validation at all. */
export async function bareJsonParseRead(path: string): Promise<Consumed> {
  const handle = await open(path, "r");
  const buffer = new Uint8Array(CHUNK_BYTES);
  const decoder = new TextDecoder();
  let carry = "";
  let checksum = 0;
  let events = 0;
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
        if (end > start) {
          checksum = (checksum + eventTerm(JSON.parse(text.slice(start, end)))) | 0;
          events++;
        }
        start = end + 1;
      }
      carry = text.slice(last + 1);
      if (bytesRead === 0) break;
    }
  } finally {
    await handle.close();
  }
  return { checksum, events };
}

/** The common hand-rolled reader: readline over a read stream, JSON.parse, a plain zod schema. */
async function readlineZod(path: string): Promise<Consumed> {
  let checksum = 0;
  let events = 0;
  const input = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === "") continue;
    const result = PlainTraceEvent.safeParse(JSON.parse(text));
    if (!result.success) throw new Error(`line ${line}: ${result.error.message}`);
    checksum = (checksum + eventTerm(result.data)) | 0;
    events++;
  }
  return { checksum, events };
}

/** DuckDB's read_json of the file into a table of all columns; returns its row count. */
export function duckdbContender(threads: string | undefined): ContenderFactory {
  return async (input) => {
    const { DuckDBInstance } = await import("@duckdb/node-api");
    const instance = await DuckDBInstance.create(":memory:", threads === undefined ? {} : { threads });
    const connection = await instance.connect();
    let tables = 0;
    const load = async (path: string): Promise<{ events: number }> => {
      const table = `trace_${tables++}`;
      await connection.run(
        `CREATE TABLE ${table} AS SELECT * FROM read_json('${path.replaceAll("'", "''")}', format = 'newline_delimited')`,
      );
      const rows = await connection.runAndReadAll(`SELECT count(*) FROM ${table}`);
      return { events: Number(rows.getRows()[0]?.[0]) };
    };
    await load(input.warmUp as string);
    return {
      run: () => load(input.file as string),
      close: () => connection.closeSync(),
    };
  };
}

function reader(read: (path: string) => Promise<Consumed>, file: "file" | "spaced"): ContenderFactory {
  return async (input) => {
    await read(input.warmUp as string);
    const path = input[file] as string;
    return { run: () => read(path) };
  };
}

const readers: Record<string, ContenderFactory> = {
  readTraceEvents: reader(validatingRead, "file"),
  readTraceBatches: reader(batchRead, "file"),
  "chunk-split + JSON.parse": reader(bareJsonParseRead, "file"),
  "readline + JSON.parse + zod": reader(readlineZod, "file"),
  "DuckDB read_json, 1 thread": duckdbContender("1"),
  "DuckDB read_json, default threads": duckdbContender(undefined),
  parseTrace: reader(documentRead, "file"),
  "spaced readTraceEvents": reader(validatingRead, "spaced"),
  "spaced chunk-split + JSON.parse": reader(bareJsonParseRead, "spaced"),
};

export const groups = { readers };

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

async function throughput(file: string, spaced: string, warmUp: string, bytes: number) {
  console.log(
    `generated trace: ${(bytes / 1e6).toFixed(1)} MB (non-canonical copy ${(statSync(spaced).size / 1e6).toFixed(1)} MB)`,
  );
  const { checksums } = await compareInProcesses({
    title: "reading every field of every event",
    module: import.meta.url,
    group: "readers",
    contenders: Object.keys(readers),
    operations: 1,
    turnEvery: 0,
    warmUpBatches: 0,
    timedBatches: 1,
    rounds: Number(process.env.CG_PARSER_BENCH_ROUNDS ?? 5),
    input: { file, spaced, warmUp },
    // MB/s of the canonical trace (the spaced copy is larger: its contenders' rates read low).
    unit: { name: "MB", perOperation: bytes / 1e6 },
    sameChecksum: [
      "readTraceEvents",
      "readTraceBatches",
      "chunk-split + JSON.parse",
      "readline + JSON.parse + zod",
    ],
    comparisons: [
      { subject: "readTraceEvents", baseline: "chunk-split + JSON.parse", mode: "speedup", target: 2 },
      { subject: "readTraceEvents", baseline: "readline + JSON.parse + zod", mode: "speedup", target: 3 },
      { subject: "readTraceEvents", baseline: "DuckDB read_json, 1 thread", mode: "speedup", target: 1.5 },
      { subject: "readTraceBatches", baseline: "chunk-split + JSON.parse", mode: "speedup", target: 2 },
      { subject: "readTraceBatches", baseline: "readline + JSON.parse + zod", mode: "speedup", target: 3 },
      { subject: "readTraceBatches", baseline: "DuckDB read_json, 1 thread", mode: "speedup", target: 1.5 },
      {
        subject: "readTraceEvents",
        baseline: "DuckDB read_json, default threads",
        mode: "speedup",
        note: "wall clock",
        wallClock: true,
      },
      { subject: "parseTrace", baseline: "chunk-split + JSON.parse", mode: "speedup" },
      {
        subject: "spaced readTraceEvents",
        baseline: "spaced chunk-split + JSON.parse",
        mode: "speedup",
        note: "a space after every comma",
      },
      {
        subject: "chunk-split + JSON.parse",
        baseline: "readline + JSON.parse + zod",
        mode: "speedup",
        note: "the ceiling of any reader that runs JSON.parse per line",
      },
    ],
  });
  const events = (checksums.get("readTraceEvents") as Consumed).events;
  for (const name of ["DuckDB read_json, 1 thread", "DuckDB read_json, default threads", "parseTrace"]) {
    const loaded = (checksums.get(name) as { events: number }).events;
    if (loaded !== events) throw new Error(`${name} loaded ${loaded} events, the readers ${events}`);
  }
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

export default async function parserBench() {
  const small = join(tmpdir(), `cg-parser-bench-${process.pid}-100mb.jsonl`);
  const spaced = join(tmpdir(), `cg-parser-bench-${process.pid}-100mb-spaced.jsonl`);
  const warmUp = join(tmpdir(), `cg-parser-bench-${process.pid}-5mb.jsonl`);
  try {
    // Smaller sizes only for smoke tests of the bench itself; the targets are for the defaults.
    const bytes = generateWriterShapedTrace(small, Number(process.env.CG_PARSER_BENCH_MB ?? 100) * 1e6);
    generateWriterShapedTrace(warmUp, 5e6);
    await writeSpacedCopy(small, spaced);
    await throughput(small, spaced, warmUp, bytes);
    unlinkSync(small);
    unlinkSync(spaced);
    unlinkSync(warmUp);

    const { path: large, bytes: largeBytes } = sharedWriterShapedTrace(
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
    for (const path of [small, spaced, warmUp]) if (existsSync(path)) unlinkSync(path);
  }
}
