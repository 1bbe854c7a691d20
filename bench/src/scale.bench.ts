// Memory of every cg-trace command on large traces (issue #14): each command runs as a fresh
// `node` child of the built binary (no flags), and its peak RSS (the kernel's high-water mark, read
// by the child itself at exit) is printed beside the goal and beside the whole-document read of
// the same trace (`parseTrace`), measured in the same run. CPU time is printed too; the machine is
// shared, so wall times are noisy and not compared.
//   CG_BENCH_SCALE_BYTES   size of the writer-shaped trace (default 1 GiB)
//   CG_BENCH_SCALE_SPANS   spans of the small-spans trace (default 1,000,000; 10,000,000 for the
//                          10 M figures of the README, which needs about 1.8 GB of disk)
//   CG_BENCH_SCALE_DIR     keep the generated traces in this folder and reuse them on later runs
//                          (default: a temporary folder, removed at the end)
//   CG_BENCH_SCALE_ONLY    run only the commands whose title matches this regular expression
// Commands write to /dev/null: some outputs (every timeline point, every tensor) are GBs.
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
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
  const sink = openSync("/dev/null", "w");
  const child = spawnSync(process.execPath, ["--import", probe, ...args], {
    encoding: "utf8",
    timeout: TIMEOUT_MS,
    maxBuffer: 256 * MB,
    stdio: ["ignore", sink, "pipe"],
  });
  closeSync(sink);
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

/** `path`, generated unless a kept folder already holds it (written under a temporary name first). */
function traceFile(path: string, generate: (path: string) => void): string {
  if (existsSync(path)) return path;
  const partial = `${path}.${process.pid}.partial`;
  generate(partial);
  renameSync(partial, path);
  return path;
}

export default async function scaleBench(): Promise<void> {
  const targetBytes = Number(process.env.CG_BENCH_SCALE_BYTES ?? 1 << 30);
  const spanCount = Number(process.env.CG_BENCH_SCALE_SPANS ?? 1_000_000);
  const kept = process.env.CG_BENCH_SCALE_DIR;
  const only = new RegExp(process.env.CG_BENCH_SCALE_ONLY ?? "");
  if (kept !== undefined) mkdirSync(kept, { recursive: true });
  const folder = kept ?? mkdtempSync(join(tmpdir(), "cg-scale-"));
  const outputs = mkdtempSync(join(tmpdir(), "cg-scale-out-"));
  try {
    const size =
      targetBytes === 1 << 30
        ? "1gib"
        : targetBytes % MB === 0
          ? `${targetBytes / MB}mib`
          : `${targetBytes}b`;
    const big = traceFile(join(folder, `writer-shaped-${size}.jsonl`), (path) =>
      generateWriterShapedTrace(path, targetBytes),
    );
    const bigMb = (statSync(big).size / MB).toFixed(0);
    console.log(`(writer-shaped trace ${bigMb} MiB; machine shared, CPU noisy)`);

    const whole = (path: string) =>
      measure([
        "--input-type=module",
        "-e",
        `const { parseTrace } = await import(${JSON.stringify(parserEntry)}); await parseTrace(${JSON.stringify(path)});`,
      ]);
    const selected = (name: string): boolean => only.test(`cg-trace ${name}`);
    const wholeBig = whole(big);
    const out = join(outputs, "out");
    const commands: [string, string[], number][] = [
      ["summary", ["summary", big], 200],
      ["summary --json", ["summary", big, "--json"], 200],
      ["validate", ["validate", big], 200],
      ["convert --to perfetto", ["convert", big, "--to", "perfetto", "-o", `${out}.json`], 200],
      ["query --kind slowest", ["query", big, "--kind", "slowest"], 200],
      ["query --kind heaviest", ["query", big, "--kind", "heaviest"], 200],
      ["query --kind efficiency", ["query", big, "--kind", "efficiency"], 200],
      ["query --kind memory --json", ["query", big, "--kind", "memory", "--json"], 200],
      ["query --kind memory", ["query", big, "--kind", "memory"], 200],
      ["query --kind spans --json", ["query", big, "--kind", "spans", "--json"], 200],
      ["query --kind tensors --json", ["query", big, "--kind", "tensors", "--json"], 200],
      ["query --kind gradients --json", ["query", big, "--kind", "gradients", "--json"], 200],
      ["query --kind ops", ["query", big, "--kind", "ops"], 200],
      [
        "query --kind ops --group-by path,shape",
        ["query", big, "--kind", "ops", "--group-by", "path,shape"],
        200,
      ],
      ["compare (the trace against itself)", ["compare", big, big], 200],
      ["compare --group-by path", ["compare", big, big, "--group-by", "path"], 200],
      ["view", ["view", big, "-o", `${out}.html`], 200],
    ];
    for (const [name, args, goal] of commands) {
      if (!selected(name)) continue;
      line(`cg-trace ${name} of ${bigMb} MiB`, measure([bin, ...args]), goal, wholeBig);
      for (const suffix of [".json", ".html"]) if (existsSync(`${out}${suffix}`)) rmSync(`${out}${suffix}`);
    }
    const spans = join(folder, `small-spans-${spanCount}.jsonl`);
    const spanCommands: [string, string[]][] = [
      ["summary", ["summary", spans]],
      ["validate", ["validate", spans]],
      ["query --kind spans --json", ["query", spans, "--kind", "spans", "--json"]],
      ["query --kind ops --group-by path", ["query", spans, "--kind", "ops", "--group-by", "path"]],
      ["compare", ["compare", spans, spans]],
    ];
    if (!spanCommands.some(([name]) => selected(`${name} of ${spanCount} spans`))) return;
    traceFile(spans, (path) => generateSmallSpansTrace(path, spanCount));
    console.log(`(${spanCount} small spans in ${(statSync(spans).size / MB).toFixed(0)} MiB)`);
    const wholeSpans = whole(spans);
    const spanGoal = spanCount <= 1_000_000 ? 300 : Math.round((spanCount * 150) / MB);
    for (const [name, args] of spanCommands) {
      const title = `cg-trace ${name} of ${spanCount} spans`;
      if (selected(`${name} of ${spanCount} spans`))
        line(title, measure([bin, ...args]), spanGoal, wholeSpans);
    }
  } finally {
    rmSync(outputs, { recursive: true, force: true });
    if (kept === undefined) rmSync(folder, { recursive: true, force: true });
  }
}
