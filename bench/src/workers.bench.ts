// cg-trace summary and validate of a 1 GiB writer-shaped trace, sequential (--workers 1) and on two
// decoding threads (--workers 2), beside DuckDB's read_json of the same file into a table of all
// columns (issue #14 part 2). Every contender runs alone in a fresh `node` child, contenders
// interleaved over rounds (rotating order); each figure is the median of the per-round ratios
// (range printed). Children report their own CPU time (all threads), wall time and peak RSS.
// The machine is shared: wall times, and so the wall ratios and the 1 → 2 worker scaling, are
// noisy (other processes take cores); the CPU ratios are the steadier figures.
//   CG_BENCH_WORKERS_TRACE  an existing writer-shaped trace to read (else one of CG_BENCH_SCALE_BYTES,
//                           default 1 GiB, is generated for the run)
//   CG_BENCH_ROUNDS         rounds (default 3)
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { report } from "./harness.js";
import { sharedWriterShapedTrace } from "./support/writer-shaped-trace.js";

const MB = 1 << 20;
const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const benchDirectory = fileURLToPath(new URL("..", import.meta.url));
/** Printed by the child at exit: peak RSS (KiB), CPU time (µs, all threads) and wall time (ms). */
const probe = `data:text/javascript,const s=performance.now();process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("\\nworkers-probe "+u.maxRSS+" "+(u.userCPUTime+u.systemCPUTime)+" "+(performance.now()-s)+"\\n")})`;
const TIMEOUT_MS = 15 * 60 * 1000;

interface Run {
  rssMb: number;
  cpuSeconds: number;
  wallSeconds: number;
}

function measure(name: string, args: string[]): Run {
  const child = spawnSync(process.execPath, ["--import", probe, ...args], {
    cwd: benchDirectory,
    encoding: "utf8",
    timeout: TIMEOUT_MS,
    maxBuffer: 64 * MB,
  });
  const match = /workers-probe (\d+) (\d+) ([\d.]+)/.exec(child.stderr ?? "");
  if (child.status !== 0 || match === null) {
    throw new Error(
      `${name} failed (exit ${child.status ?? child.signal}): ${(child.stderr ?? "").slice(0, 400)}`,
    );
  }
  return {
    rssMb: Number(match[1]) / 1024,
    cpuSeconds: Number(match[2]) / 1e6,
    wallSeconds: Number(match[3]) / 1000,
  };
}

/** DuckDB's read_json into a table of all columns; the child checks the row count. */
function duckdbArgs(path: string, events: number, threads: number | undefined): string[] {
  const script = `
    const { DuckDBInstance } = await import("@duckdb/node-api");
    const instance = await DuckDBInstance.create(":memory:", ${threads === undefined ? "{}" : `{ threads: "${threads}" }`});
    const connection = await instance.connect();
    await connection.run(${JSON.stringify(`CREATE TABLE trace AS SELECT * FROM read_json('${path.replaceAll("'", "''")}', format = 'newline_delimited')`)});
    const rows = Number((await connection.runAndReadAll("SELECT count(*) FROM trace")).getRows()[0][0]);
    if (rows !== ${events}) throw new Error("DuckDB read " + rows + " rows, expected ${events}");
    connection.closeSync();`;
  return ["--input-type=module", "-e", script];
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function spread(values: number[]): string {
  const sorted = [...values].sort((left, right) => left - right);
  return `${(sorted[0] as number).toFixed(2)}–${(sorted[sorted.length - 1] as number).toFixed(2)}`;
}

/** Lines of a generated trace: one event each, so DuckDB's row count must equal it. */
function countLines(path: string): number {
  const fd = openSync(path, "r");
  const buffer = new Uint8Array(1 << 20);
  let lines = 0;
  try {
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) {
      for (let at = buffer.indexOf(10); at >= 0 && at < read; at = buffer.indexOf(10, at + 1)) lines++;
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}

export default async function workersBench(): Promise<void> {
  const given = process.env.CG_BENCH_WORKERS_TRACE;
  const path = given ?? sharedWriterShapedTrace(Number(process.env.CG_BENCH_SCALE_BYTES ?? 1 << 30)).path;
  const rounds = Math.max(1, Number(process.env.CG_BENCH_ROUNDS ?? 3));
  const megabytes = (statSync(path).size / MB).toFixed(0);
  const events = countLines(path);
  const contenders: Record<string, string[]> = {
    "DuckDB read_json, default threads": duckdbArgs(path, events, undefined),
    "DuckDB read_json, 1 thread": duckdbArgs(path, events, 1),
    "validate --workers 1": [bin, "validate", path, "--workers", "1"],
    "validate --workers 2": [bin, "validate", path, "--workers", "2"],
    "summary --workers 1": [bin, "summary", path, "--workers", "1"],
    "summary --workers 2": [bin, "summary", path, "--workers", "2"],
  };
  const names = Object.keys(contenders);
  const runs = new Map<string, Run[]>(names.map((name) => [name, []]));
  console.log(
    `(writer-shaped trace ${megabytes} MiB, ${events} events; ${rounds} rounds; machine shared: wall times noisy)`,
  );
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < names.length; turn++) {
      const name = names[(round + turn) % names.length] as string;
      const run = measure(name, contenders[name] as string[]);
      (runs.get(name) as Run[]).push(run);
      console.log(
        `  round ${round + 1} ${name}: CPU ${run.cpuSeconds.toFixed(1)} s, wall ${run.wallSeconds.toFixed(1)} s, peak RSS ${run.rssMb.toFixed(0)} MB`,
      );
    }
  }
  const of = (name: string) => runs.get(name) as Run[];
  const perRound = (subject: string, baseline: string, ratio: (subject: Run, baseline: Run) => number) =>
    of(subject).map((run, round) => ratio(run, of(baseline)[round] as Run));
  const compare = (
    title: string,
    values: number[],
    mode: "speedup" | "cost",
    target: number | undefined,
    subject: number,
    baseline: number,
  ) => {
    report(
      { title, subjectOpsPerSecond: 1 / subject, baselineOpsPerSecond: 1 / baseline, ratio: median(values) },
      mode,
      target,
    );
    console.log(`  (median of ${values.length} rounds, range ${spread(values)})`);
  };
  const duckdb = "DuckDB read_json, default threads";
  const medianOf = (name: string, field: keyof Run) => median(of(name).map((run) => run[field]));
  for (const command of ["validate", "summary"]) {
    for (const workers of [1, 2]) {
      const name = `${command} --workers ${workers}`;
      // CPU: ours ÷ DuckDB's (all threads each), goal ≤ 1.
      compare(
        `cg-trace ${name} of ${megabytes} MiB vs ${duckdb}: CPU time (cost, all threads)`,
        perRound(name, duckdb, (ours, theirs) => ours.cpuSeconds / theirs.cpuSeconds),
        "cost",
        1,
        medianOf(name, "cpuSeconds"),
        medianOf(duckdb, "cpuSeconds"),
      );
      // Wall: DuckDB's ÷ ours, goal > 1 (ahead of it) with every core in use.
      compare(
        `cg-trace ${name} of ${megabytes} MiB vs ${duckdb}: wall time (speedup)`,
        perRound(name, duckdb, (ours, theirs) => theirs.wallSeconds / ours.wallSeconds),
        "speedup",
        workers === 1 ? undefined : 1,
        medianOf(name, "wallSeconds"),
        medianOf(duckdb, "wallSeconds"),
      );
    }
    const one = `${command} --workers 1`;
    const two = `${command} --workers 2`;
    compare(
      `cg-trace ${command}: 2 workers vs 1, wall time (scaling)`,
      perRound(two, one, (parallel, sequential) => sequential.wallSeconds / parallel.wallSeconds),
      "speedup",
      undefined,
      medianOf(two, "wallSeconds"),
      medianOf(one, "wallSeconds"),
    );
    compare(
      `cg-trace ${command}: 2 workers vs 1, CPU time (cost of the threads)`,
      perRound(two, one, (parallel, sequential) => parallel.cpuSeconds / sequential.cpuSeconds),
      "cost",
      undefined,
      medianOf(two, "cpuSeconds"),
      medianOf(one, "cpuSeconds"),
    );
    const rss = medianOf(two, "rssMb");
    console.log(
      `cg-trace ${two} peak RSS ${rss.toFixed(0)} MB (${command} --workers 1: ${medianOf(one, "rssMb").toFixed(0)} MB; goal ≤ 200 MB: ${rss <= 200 ? "met" : "NOT met"})`,
    );
  }
  console.log(
    `DuckDB 1 thread: CPU ${medianOf("DuckDB read_json, 1 thread", "cpuSeconds").toFixed(1)} s, wall ${medianOf("DuckDB read_json, 1 thread", "wallSeconds").toFixed(1)} s; default threads: CPU ${medianOf(duckdb, "cpuSeconds").toFixed(1)} s, wall ${medianOf(duckdb, "wallSeconds").toFixed(1)} s, peak RSS ${medianOf(duckdb, "rssMb").toFixed(0)} MB`,
  );
}
