// Fresh-process comparisons: every contender runs alone in its own child process (no JIT feedback,
// GC state or open handles shared with its rivals), the contenders of a group are interleaved over
// several rounds in a rotating order, and each figure is the median of the per-round ratios, printed
// beside its baseline through the shared `report`.
//
// Inside a child the operations run the way a real program runs them: in slices of at most
// `turnEvery` operations with a full event-loop turn (`setImmediate`) after each, so timers, async
// writes and batch exports get to run and per-operation promises settle.
//
// Two timing methods:
//  - "cpu" (default): process CPU time (user + system, every thread: GC, libuv pool, native
//    engines) of whole timed batches, event-loop turns included: deferred work counts. On a shared
//    machine CPU time does not count the time spent waiting for a core.
//  - "segments": the median wall time of the synchronous slices between turns (each a few
//    microseconds, so descheduling rarely hits one and the median drops those that it does). For
//    purely synchronous operations of a few nanoseconds (the closed capture gate and the empty call
//    it is held against), whose figure the cost of the turns themselves would otherwise swamp.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { report } from "./harness.js";

export interface Operation {
  /** Performs `count` operations; returns a checksum of what it consumed (compared across contenders). */
  run(count: number): unknown;
  /** Called inside the timing after every timed batch (flush buffers, wait for pending writes). */
  settle?(): unknown;
  /** Called once after the last batch, outside the timing. */
  close?(): unknown;
  /**
   * What the processes the last batch ran cost (an operation that runs the built binary): their
   * CPU time is added to the batch's, and the largest peak RSS stands for the contender's.
   */
  spawned?(): { cpuNs: number; maxRssBytes: number };
}

/** Builds a contender's operation inside its child: open files, warm up the way a real program would. */
export type ContenderFactory = (input: Readonly<Record<string, string>>) => Operation | Promise<Operation>;

export interface ProcessComparison {
  subject: string;
  baseline: string;
  mode: "speedup" | "cost";
  target?: number;
  /** Text that follows the title, e.g. what the ratio means. */
  note?: string;
  /** Compare wall-clock times instead (for contenders that use several cores on purpose). */
  wallClock?: boolean;
}

export interface ProcessGroupOptions {
  title: string;
  /** `import.meta.url` of the bench file that exports `groups[group]`. */
  module: string;
  group: string;
  /** Contender names to run (keys of the group). */
  contenders: readonly string[];
  comparisons: readonly ProcessComparison[];
  /** Operations in one timed batch. */
  operations: number;
  /** Event-loop turn after at most this many operations (0: the operation turns it itself). */
  turnEvery?: number;
  /** Untimed batches run first in each child. */
  warmUpBatches?: number;
  /** Timed batches per child; the child reports their median. */
  timedBatches?: number;
  rounds?: number;
  timing?: "cpu" | "segments";
  /** Passed to every factory. */
  input?: Record<string, string>;
  /** Contenders whose checksums must all be equal (the same work, fully consumed). */
  sameChecksum?: readonly string[];
  /** Unit of one operation in the printed rates. */
  unit?: { name: string; perOperation: number };
}

export interface ChildResult {
  nsPerOperation: number;
  cpuNsPerOperation: number;
  wallNsPerOperation: number;
  segmentNsPerOperation: number;
  checksum: unknown;
  maxRssBytes: number;
}

/** The child's request travels in this environment variable. */
export const CHILD_FLAG = "CG_BENCH_CHILD";
const childEntry = fileURLToPath(new URL("./process-child.ts", import.meta.url));

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function spawnContender(
  options: ProcessGroupOptions,
  contender: string,
  timing: "cpu" | "segments",
): ChildResult {
  const request = {
    module: options.module,
    group: options.group,
    contender,
    operations: options.operations,
    turnEvery: options.turnEvery ?? 1000,
    warmUpBatches: options.warmUpBatches ?? 3,
    timedBatches: options.timedBatches ?? 3,
    input: options.input ?? {},
  };
  const child = spawnSync(process.execPath, [...process.execArgv, childEntry], {
    env: { ...process.env, [CHILD_FLAG]: JSON.stringify(request) },
    encoding: "utf8",
    maxBuffer: 16 << 20,
  });
  if (child.status !== 0) {
    throw new Error(`bench child ${options.group}/${contender} failed (${child.status}): ${child.stderr}`);
  }
  const line = child.stdout.trim().split("\n").pop() as string;
  const result = JSON.parse(line) as ChildResult;
  return {
    ...result,
    nsPerOperation: timing === "segments" ? result.segmentNsPerOperation : result.cpuNsPerOperation,
  };
}

function formatNs(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(1)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(ns < 10 ? 2 : 0)} ns`;
}

/** Runs a group of contenders in fresh interleaved child processes and reports each comparison. */
export async function compareInProcesses(options: ProcessGroupOptions) {
  const rounds = Number(process.env.CG_BENCH_ROUNDS ?? options.rounds ?? 5);
  const timing = options.timing ?? "cpu";
  const names = options.contenders;
  const times = new Map<string, number[]>(names.map((name) => [name, []]));
  const wall = new Map<string, number[]>(names.map((name) => [name, []]));
  const rss = new Map<string, number[]>(names.map((name) => [name, []]));
  const checksums = new Map<string, unknown>();
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < names.length; offset++) {
      const name = names[(round + offset) % names.length] as string;
      const result = spawnContender(options, name, timing);
      times.get(name)?.push(result.nsPerOperation);
      wall.get(name)?.push(result.wallNsPerOperation);
      rss.get(name)?.push(result.maxRssBytes);
      const previous = checksums.get(name);
      if (previous !== undefined && JSON.stringify(previous) !== JSON.stringify(result.checksum)) {
        throw new Error(`${name} consumed different data in different rounds`);
      }
      checksums.set(name, result.checksum);
    }
  }
  const same = options.sameChecksum ?? [];
  const distinct = new Set(same.map((name) => JSON.stringify(checksums.get(name))));
  if (distinct.size > 1) {
    throw new Error(
      `${options.title}: contenders consumed different data: ${same.map((name) => `${name}=${JSON.stringify(checksums.get(name))}`).join(", ")}`,
    );
  }
  const turnEvery = options.turnEvery ?? 1000;
  const method =
    timing === "cpu"
      ? "process CPU time per op (all threads)"
      : "median wall time per op of the synchronous slices between event-loop turns";
  console.log(
    `${options.title}: ${rounds} interleaved rounds, each contender in a fresh process; ${method}` +
      `${turnEvery > 0 ? `; the event loop turns every ${turnEvery} ops${timing === "cpu" ? " (counted)" : ""}` : ""}`,
  );
  const unit = options.unit;
  for (const name of names) {
    const perOp = median(times.get(name) ?? []);
    const rate = unit ? `  ${(unit.perOperation / (perOp / 1e9)).toFixed(1)} ${unit.name}/s` : "";
    console.log(
      `  ${name.padEnd(28)} ${formatNs(perOp).padStart(9)}/op${rate}  (wall ${formatNs(median(wall.get(name) ?? []))}/op, peak RSS ${(median(rss.get(name) ?? []) / 2 ** 20).toFixed(0)} MiB)`,
    );
  }
  const results = [];
  for (const comparison of options.comparisons) {
    const source = comparison.wallClock ? wall : times;
    const subjectTimes = source.get(comparison.subject) ?? [];
    const baselineTimes = source.get(comparison.baseline) ?? [];
    const ratios = subjectTimes.map((subjectTime, index) => {
      const baselineTime = baselineTimes[index] as number;
      return comparison.mode === "speedup" ? baselineTime / subjectTime : subjectTime / baselineTime;
    });
    const result = report(
      {
        title: `${options.title} — ${comparison.subject} vs ${comparison.baseline}${comparison.note ? ` (${comparison.note})` : ""}`,
        subjectOpsPerSecond: 1e9 / median(subjectTimes),
        baselineOpsPerSecond: 1e9 / median(baselineTimes),
        ratio: median(ratios),
      },
      comparison.mode,
      comparison.target,
    );
    console.log(
      `  per-round ratios ${Math.min(...ratios).toFixed(2)}x–${Math.max(...ratios).toFixed(2)}x (median of ${rounds})`,
    );
    results.push({ ...result, ratios });
  }
  return { results, times, wall, checksums };
}
