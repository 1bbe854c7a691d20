// The columnar reader and the commands on it (`pnpm bench parser`). Generates a writer-shaped trace
// into the OS temp folder (never committed; CG_PARSER_COLUMNS_MB, default 100 MB):
//  1. readColumnBatches with every column consumed (support/consume-columns.ts: the same checksum
//     as support/consume-event.ts over every field of every event) against the bare chunk-split +
//     JSON.parse loop, cold (a fresh process, no warm-up: the first read of a program) and warm (a
//     5 MB read first) beside it; the event-object readers (readTraceEvents, readTraceBatches, whose
//     events are made from the column batches) against the same loop in the same cold setting; the
//     cold readers again on the commands' 1 GiB trace, where a process's fixed JIT warm-up weighs a
//     tenth as much;
//  2. `cg-trace validate` and `cg-trace summary` (the built binary as users run it, in a `node` of
//     its own: start, module loading and heap settings counted; output discarded) against DuckDB's
//     read_json of the file into a table of all columns on one thread, cold, as CPU MB/s per core
//     and CPU-time ratios; and validate's read and fold without the CLI (checkColumns) against the
//     read alone (readColumnBatches, nothing consumed): the fold's cost.
//     On the 1 GiB trace the goal names (CG_PARSER_COMMANDS_MB, default 1024; 5 rounds): a process's
//     JIT warm-up, about 0.4 s of CPU whatever the size, is a third of a 100 MB read's CPU time.
// Each contender runs in its own child process, interleaved over rounds (process-harness.ts);
// figures are medians of per-round ratios of process CPU time (all threads).
import { statSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkColumns, readColumnBatches } from "@cg/parser";
import { bareJsonParseRead, batchRead, duckdbContender, validatingRead } from "./parser.bench.js";
import { type ContenderFactory, compareInProcesses, type ProcessComparison } from "./process-harness.js";
import { type BinaryRun, runBinary } from "./support/binary-run.js";
import { columnsTerm } from "./support/consume-columns.js";
import type { Consumed } from "./support/consume-event.js";
import { generateWriterShapedTrace, sharedWriterShapedTrace } from "./support/writer-shaped-trace.js";

/** Subject: every column of every batch consumed. */
async function columnRead(path: string): Promise<Consumed> {
  let checksum = 0;
  let events = 0;
  for await (const batch of readColumnBatches(path)) {
    checksum = (checksum + columnsTerm(batch)) | 0;
    events += batch.size;
  }
  return { checksum, events };
}

function reader(read: (path: string) => Promise<Consumed>, warm: boolean): ContenderFactory {
  return async (input) => {
    if (warm) await read(input.warmUp as string);
    return { run: () => read(input.file as string) };
  };
}

/**
 * `cg-trace <command> <file>` as users run it: the built binary in a `node` of its own (its start,
 * module loading and heap settings included), output read and discarded; its CPU time and peak RSS.
 */
function binaryContender(command: "validate" | "summary"): ContenderFactory {
  return (input) => {
    let last: BinaryRun | undefined;
    return {
      run: () => {
        last = runBinary([command, input.file as string]);
        return { events: last.stdout.length > 0 ? 1 : 0 };
      },
      spawned: () => ({ cpuNs: last?.cpuNs ?? 0, maxRssBytes: last?.maxRssBytes ?? 0 }),
    };
  };
}

/** validate's read and fold without the CLI around it. */
const foldContender: ContenderFactory = (input) => ({
  run: async () => ({
    events: (await checkColumns(input.file as string, { file: input.file as string })).events,
  }),
});

/** The same validating read with nothing consumed: what the fold adds is the difference. */
const bareReadContender: ContenderFactory = (input) => ({
  run: async () => {
    let events = 0;
    for await (const batch of readColumnBatches(input.file as string)) events += batch.size;
    return { events };
  },
});

const readers: Record<string, ContenderFactory> = {
  "readColumnBatches, cold": reader(columnRead, false),
  "chunk-split + JSON.parse, cold": reader(bareJsonParseRead, false),
  "readTraceEvents, cold": reader(validatingRead, false),
  "readTraceBatches, cold": reader(batchRead, false),
  "readColumnBatches, warm": reader(columnRead, true),
  "chunk-split + JSON.parse, warm": reader(bareJsonParseRead, true),
};

const commands: Record<string, ContenderFactory> = {
  "cg-trace validate": binaryContender("validate"),
  "cg-trace summary": binaryContender("summary"),
  "DuckDB read_json, 1 thread": duckdbContender("1"),
  "checkColumns (validate's read and fold)": foldContender,
  "readColumnBatches, nothing consumed": bareReadContender,
};

export const groups = { readers, commands };

const readerComparisons: ProcessComparison[] = [
  {
    subject: "readColumnBatches, cold",
    baseline: "chunk-split + JSON.parse, cold",
    mode: "speedup",
    target: 3,
  },
  {
    subject: "readTraceEvents, cold",
    baseline: "chunk-split + JSON.parse, cold",
    mode: "speedup",
    target: 2,
    note: "the event-object reader: events made from the column batches",
  },
  {
    subject: "readTraceBatches, cold",
    baseline: "chunk-split + JSON.parse, cold",
    mode: "speedup",
    target: 2,
  },
  {
    subject: "readColumnBatches, warm",
    baseline: "chunk-split + JSON.parse, warm",
    mode: "speedup",
    note: "after a 5 MB read",
  },
];

export default async function parserColumnsBench(): Promise<void> {
  const file = join(tmpdir(), `cg-parser-columns-${process.pid}.jsonl`);
  const warmUp = join(tmpdir(), `cg-parser-columns-${process.pid}-5mb.jsonl`);
  try {
    const bytes = generateWriterShapedTrace(file, Number(process.env.CG_PARSER_COLUMNS_MB ?? 100) * 1e6);
    generateWriterShapedTrace(warmUp, 5e6);
    console.log(`generated trace: ${(bytes / 1e6).toFixed(1)} MB`);
    const rounds = Number(process.env.CG_PARSER_BENCH_ROUNDS ?? 5);
    const unit = { name: "MB", perOperation: statSync(file).size / 1e6 };
    const common = {
      module: import.meta.url,
      operations: 1,
      turnEvery: 0,
      warmUpBatches: 0,
      timedBatches: 1,
      rounds,
      input: { file, warmUp },
      unit,
    };
    await compareInProcesses({
      ...common,
      title: "columnar reader, every column consumed",
      group: "readers",
      contenders: Object.keys(readers),
      sameChecksum: Object.keys(readers),
      comparisons: readerComparisons,
    });
    const commandsTrace = sharedWriterShapedTrace(
      Number(process.env.CG_PARSER_COMMANDS_MB ?? 1024) * 2 ** 20,
    );
    console.log(`commands' trace: ${(commandsTrace.bytes / 2 ** 20).toFixed(0)} MiB`);
    const commandsInput = { file: commandsTrace.path, warmUp };
    const commandsUnit = { name: "MB", perOperation: commandsTrace.bytes / 1e6 };
    const coldReaders = Object.keys(readers).filter((name) => name.endsWith(", cold"));
    await compareInProcesses({
      ...common,
      input: commandsInput,
      unit: commandsUnit,
      title: "columnar reader, every column consumed, on the commands' trace",
      group: "readers",
      contenders: coldReaders,
      sameChecksum: coldReaders,
      comparisons: readerComparisons.filter(
        (comparison) => comparison.subject.endsWith(", cold") && comparison.baseline.endsWith(", cold"),
      ),
    });
    await compareInProcesses({
      ...common,
      // DuckDB's read_json varies by up to 1.6x from run to run here: five rounds give a steadier median.
      rounds: Number(process.env.CG_PARSER_BENCH_ROUNDS ?? 5),
      input: commandsInput,
      unit: commandsUnit,
      title: "cg-trace validate and summary, cold",
      group: "commands",
      contenders: Object.keys(commands),
      comparisons: [
        { subject: "cg-trace validate", baseline: "DuckDB read_json, 1 thread", mode: "speedup", target: 2 },
        { subject: "cg-trace summary", baseline: "DuckDB read_json, 1 thread", mode: "speedup", target: 2 },
        {
          subject: "checkColumns (validate's read and fold)",
          baseline: "readColumnBatches, nothing consumed",
          mode: "cost",
          note: "the fold's cost over the read alone",
        },
      ],
    });
  } finally {
    for (const path of [file, warmUp]) {
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    }
  }
}
