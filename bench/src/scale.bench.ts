// Memory of every cg-trace command on large traces (issue #14): each command runs as a fresh
// `node` child of the built binary (no flags), and its peak RSS (the kernel's high-water mark, read
// by the child itself at exit) is printed beside the goal and beside the whole-document read of
// the same trace (`parseTrace`), measured in the same run. CPU time is printed too; the machine is
// shared, so wall times are noisy and not compared.
//   CG_BENCH_SCALE_BYTES   size of the writer-shaped trace (default 1 GiB)
//   CG_BENCH_SCALE_SPANS   spans of the small-spans trace (default 1,000,000; 10,000,000 for the
//                          10 M figures of the README, which needs about 1.8 GB of disk)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { results } from "./harness.js";
import { generateSmallSpansTrace } from "./support/small-spans-trace.js";
import { generateWriterShapedTrace } from "./support/writer-shaped-trace.js";

const MB = 1 << 20;
const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const parserEntry = new URL("../../packages/parser/dist/index.js", import.meta.url).href;
/** Printed by the child at exit: its peak RSS and CPU time. */
const probe = `data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("\\nscale-probe "+u.maxRSS+" "+(u.userCPUTime+u.systemCPUTime)+"\\n")})`;
const TIMEOUT_MS = 15 * 60 * 1000;

interface Run {
  ok: boolean;
  rssMb: number;
  cpuSeconds: number;
  detail: string;
}

function measure(args: string[]): Run {
  const child = spawnSync(process.execPath, ["--import", probe, ...args], {
    encoding: "utf8",
    timeout: TIMEOUT_MS,
    maxBuffer: 256 * MB,
  });
  const match = /scale-probe (\d+) (\d+)/.exec(child.stderr ?? "");
  const rssMb = match ? Number(match[1]) / 1024 : Number.NaN;
  const cpuSeconds = match ? Number(match[2]) / 1e6 : Number.NaN;
  const lastError = (child.stderr ?? "").split("\n").find((line) => /error|Error/.test(line)) ?? "";
  const ok = child.status === 0 || child.status === 1; // 1: untrusted, still a finished run
  return {
    ok,
    rssMb,
    cpuSeconds,
    detail: ok ? "" : `exit ${child.status ?? child.signal}: ${lastError.slice(0, 160)}`,
  };
}

function line(title: string, run: Run, goalMb: number, baseline?: Run): void {
  const met = run.ok && run.rssMb <= goalMb;
  const base =
    baseline === undefined
      ? ""
      : `; whole document ${baseline.ok ? `${baseline.rssMb.toFixed(0)} MB` : "failed"} (${baseline.ok ? `${(run.rssMb / baseline.rssMb).toFixed(2)}x` : "—"})`;
  console.log(
    `${title}\n  peak RSS ${run.rssMb.toFixed(0)} MB, CPU ${run.cpuSeconds.toFixed(1)} s${base}` +
      `\n  goal ≤ ${goalMb} MB: ${met ? "met" : "NOT met"}${run.ok ? "" : ` (${run.detail})`}`,
  );
  results.push({
    title,
    subjectOpsPerSecond: run.rssMb,
    baselineOpsPerSecond: goalMb,
    ratio: run.rssMb / goalMb,
    met,
  });
}

export default async function scaleBench(): Promise<void> {
  const targetBytes = Number(process.env.CG_BENCH_SCALE_BYTES ?? 1 << 30);
  const spanCount = Number(process.env.CG_BENCH_SCALE_SPANS ?? 1_000_000);
  const folder = mkdtempSync(join(tmpdir(), "cg-scale-"));
  try {
    const big = join(folder, "writer-shaped.jsonl");
    const spans = join(folder, "small-spans.jsonl");
    generateWriterShapedTrace(big, targetBytes);
    generateSmallSpansTrace(spans, spanCount);
    const bigMb = (statSync(big).size / MB).toFixed(0);
    const spansMb = (statSync(spans).size / MB).toFixed(0);
    console.log(
      `(writer-shaped trace ${bigMb} MiB; ${spanCount} small spans in ${spansMb} MiB; machine shared, CPU noisy)`,
    );

    const whole = (path: string) =>
      measure([
        "--input-type=module",
        "-e",
        `const { parseTrace } = await import(${JSON.stringify(parserEntry)}); await parseTrace(${JSON.stringify(path)});`,
      ]);
    const wholeBig = whole(big);
    const out = join(folder, "out");
    const commands: [string, string[], number][] = [
      ["summary", ["summary", big], 200],
      ["summary --json", ["summary", big, "--json"], 200],
      ["validate", ["validate", big], 200],
      ["convert --to perfetto", ["convert", big, "--to", "perfetto", "-o", `${out}.json`], 200],
      ["query --kind slowest", ["query", big, "--kind", "slowest"], 200],
      ["query --kind memory", ["query", big, "--kind", "memory", "--json"], 200],
      ["compare (the trace against itself)", ["compare", big, big], 200],
      ["view", ["view", big, "-o", `${out}.html`], 200],
    ];
    for (const [name, args, goal] of commands) {
      line(`cg-trace ${name} of ${bigMb} MiB`, measure([bin, ...args]), goal, wholeBig);
      for (const suffix of [".json", ".html"]) if (existsSync(`${out}${suffix}`)) rmSync(`${out}${suffix}`);
    }
    const wholeSpans = whole(spans);
    const spanGoal = spanCount <= 1_000_000 ? 300 : Math.round((spanCount * 150) / MB);
    line(`cg-trace summary of ${spanCount} spans`, measure([bin, "summary", spans]), spanGoal, wholeSpans);
    line(`cg-trace validate of ${spanCount} spans`, measure([bin, "validate", spans]), spanGoal, wholeSpans);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
