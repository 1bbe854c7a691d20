// Peak RSS of `cg-trace compare <a> <b>` on two different 1 GiB writer-made traces (the second one
// the same trace with every matmul slower: 99 ns instead of 90, the same bytes per line, so the
// same spans with a planted change), beside `cg-trace summary <a>` in the same run as the baseline:
// each a fresh `node` child of the built binary, its peak RSS the kernel's high-water mark read by
// the child itself at exit. The goal is ≤ 200 MB for the comparison.
//   CG_BENCH_COMPARE_BYTES   size of each trace (default 1 GiB)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { results } from "./harness.js";
import { runBinary } from "./support/binary-run.js";
import { generateWriterShapedTrace, sharedWriterShapedTrace } from "./support/writer-shaped-trace.js";

const GOAL_MB = 200;

interface Run {
  rssMb: number;
  cpuSeconds: number;
  stdout: string;
}

/** Runs `cg-trace args…`; exit 0 or 1 (a broken gate rule) is a finished run. */
function measure(args: string[]): Run {
  const run = runBinary(args, [0, 1]);
  return { rssMb: run.maxRssBytes / (1 << 20), cpuSeconds: run.cpuNs / 1e9, stdout: run.stdout };
}

export default async function compareBench(): Promise<void> {
  const bytes = Number(process.env.CG_BENCH_COMPARE_BYTES ?? 1 << 30);
  const dir = mkdtempSync(join(tmpdir(), "cg-compare-bench-"));
  try {
    const baseline = sharedWriterShapedTrace(bytes).path;
    const candidate = join(dir, "candidate.jsonl");
    generateWriterShapedTrace(candidate, bytes, "bench::train", 99);
    const summary = measure(["summary", baseline]);
    const compare = measure(["compare", baseline, candidate]);
    if (!compare.stdout.includes("matmul")) throw new Error("compare did not show the slowed matmul");
    const size = `${(bytes / (1 << 30)).toFixed(2)} GiB`;
    const met = compare.rssMb <= GOAL_MB;
    const title = `cg-trace compare of two ${size} writer-made traces (one planted change), peak RSS`;
    console.log(
      `${title}\n  compare ${compare.rssMb.toFixed(0)} MB, CPU ${compare.cpuSeconds.toFixed(1)} s; ` +
        `cg-trace summary of one of them ${summary.rssMb.toFixed(0)} MB, CPU ${summary.cpuSeconds.toFixed(1)} s ` +
        `(compare / summary ${(compare.rssMb / summary.rssMb).toFixed(2)}x)\n  goal ≤ ${GOAL_MB} MB: ${met ? "met" : "NOT met"}`,
    );
    results.push({
      title,
      subjectOpsPerSecond: compare.rssMb,
      baselineOpsPerSecond: GOAL_MB,
      ratio: compare.rssMb / GOAL_MB,
      met,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
