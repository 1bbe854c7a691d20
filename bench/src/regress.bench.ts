// `regress` over 1,000 runs: a synthetic fleet (writer-made small traces, noisy op times, one op
// slowed in the newest 3 runs) exported as a Parquet dataset, then the verdict answered from it.
//  1. openDataset (the runs and ops tables, as `cg-trace regress` opens it) + regressFleet (baseline
//     20, candidate 3, 5 top operators) in a fresh plain `node` child (the ESM entry of @cg/sql),
//     against openTraceDatabase of the 1,000 JSONL traces + regressFleet, alternated over 5 rounds;
//     wall clock and process CPU time per side (the open and the verdict apart too), the figure the
//     median ratio. The goal is an answer from the dataset in ≤ 2 s.
//  2. The whole command, `cg-trace regress <dataset> --json` (node start, DuckDB, the verdict, and the
//     attribution: the streamed comparison of the two representative traces), 5 runs; wall clock and
//     the process's CPU time (on a shared machine the CPU time is the steadier figure).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { exportParquet } from "@cg/sql";
import { report } from "./harness.js";
import { writeRegressFleet } from "./support/regress-fleet.js";

interface Figures {
  seconds: number;
  openSeconds: number;
  cpuSeconds: number;
  regressed: boolean;
}

const CHILD = `
const { pathToFileURL } = require("node:url");
const cpu = () => { const { user, system } = process.cpuUsage(); return (user + system) / 1e6; };
import(pathToFileURL(process.env.CG_REGRESS_BENCH_ENTRY).href).then(async (sql) => {
  const start = performance.now();
  const cpuStart = cpu();
  const input = process.env.CG_REGRESS_BENCH_INPUT;
  const database = process.env.CG_REGRESS_BENCH_KIND === "dataset"
    ? await sql.openDataset(input, { tables: ["runs", "ops"] })
    : await sql.openTraceDatabase({ traces: [input] });
  const opened = performance.now();
  const result = await sql.regressFleet(database, { baseline: 20, candidate: 3 });
  database.close();
  console.log(JSON.stringify({ seconds: (performance.now() - start) / 1000, openSeconds: (opened - start) / 1000, cpuSeconds: cpu() - cpuStart, regressed: result.regressed }));
});`;

function child(entry: string, kind: "dataset" | "traces", input: string): Figures {
  const result = spawnSync(process.execPath, ["-e", CHILD], {
    env: {
      ...process.env,
      CG_REGRESS_BENCH_ENTRY: entry,
      CG_REGRESS_BENCH_KIND: kind,
      CG_REGRESS_BENCH_INPUT: input,
    },
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (result.status !== 0) throw new Error(`regress bench child failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").pop() as string) as Figures;
}

/** Printed by the command's process at exit: its CPU time (µs), every thread. */
const CPU_PROBE = `data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("\\nregress-probe "+(u.userCPUTime+u.systemCPUTime)+"\\n")})`;

const median = (values: number[]): number => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[sorted.length >> 1] as number;
};

export default async function regressBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cg-regress-bench-"));
  try {
    const traces = join(dir, "traces");
    const dataset = join(dir, "dataset");
    writeRegressFleet(traces, {
      runs: 1000,
      seed: 1000,
      slowOp: { op: "matmul_grad", factor: 1.5, runs: 3 },
    });
    await exportParquet([traces], dataset);
    const require = createRequire(import.meta.url);
    const entry = join(dirname(require.resolve("@cg/sql")), "index.js");
    const fromDataset: Figures[] = [];
    const fromTraces: Figures[] = [];
    for (let round = 0; round < 5; round++) {
      fromDataset.push(child(entry, "dataset", dataset));
      fromTraces.push(child(entry, "traces", traces));
    }
    if (![...fromDataset, ...fromTraces].every((figures) => figures.regressed)) {
      throw new Error("regress did not flag the planted change");
    }
    const ratios = fromDataset.map(
      (figures, index) => (fromTraces[index] as Figures).seconds / figures.seconds,
    );
    const datasetSeconds = median(fromDataset.map((figures) => figures.seconds));
    const tracesSeconds = median(fromTraces.map((figures) => figures.seconds));
    report(
      {
        title:
          "regressFleet of 1,000 runs from the Parquet dataset vs from the 1,000 JSONL traces (openDataset / openTraceDatabase + regressFleet, wall clock)",
        subjectOpsPerSecond: 1 / datasetSeconds,
        baselineOpsPerSecond: 1 / tracesSeconds,
        ratio: median(ratios),
      },
      "speedup",
    );
    const cpu = median(fromDataset.map((figures) => figures.cpuSeconds));
    const open = median(fromDataset.map((figures) => figures.openSeconds));
    const verdict = median(fromDataset.map((figures) => figures.seconds - figures.openSeconds));
    console.log(
      `  from the dataset: median ${datasetSeconds.toFixed(2)} s wall (rounds ${fromDataset.map((figures) => figures.seconds.toFixed(2)).join(", ")}; openDataset ${open.toFixed(2)} s, regressFleet ${verdict.toFixed(2)} s), ${cpu.toFixed(2)} s CPU`,
    );
    const bin = resolve(dirname(fileURLToPath(import.meta.url)), "../../packages/cli/dist/bin.js");
    const commandSeconds: number[] = [];
    const commandCpu: number[] = [];
    for (let round = 0; round < 5; round++) {
      const start = performance.now();
      const result = spawnSync(process.execPath, ["--import", CPU_PROBE, bin, "regress", dataset, "--json"], {
        encoding: "utf8",
        maxBuffer: 64 << 20,
      });
      commandSeconds.push((performance.now() - start) / 1000);
      if (result.status !== 1) throw new Error(`cg-trace regress exited ${result.status}: ${result.stderr}`);
      commandCpu.push(Number(/regress-probe (\d+)/.exec(result.stderr)?.[1]) / 1e6);
    }
    const command = median(commandSeconds);
    console.log(
      `  the whole command, cg-trace regress <dataset> --json (node start and attribution included): median ${command.toFixed(2)} s wall (runs ${commandSeconds.map((seconds) => seconds.toFixed(2)).join(", ")}), ${median(commandCpu).toFixed(2)} s CPU; goal ≤ 2 s: ${command <= 2 ? "met" : "NOT met"}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
