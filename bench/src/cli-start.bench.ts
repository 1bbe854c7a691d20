// What a start costs (`pnpm bench cli-start`): each contender is a fresh `node` process, whose whole
// CPU time (user + system, every thread, from its own start to its exit) is the figure. Interleaved
// over rounds; figures are medians of per-round ratios.
//  1. `cg-trace summary` of a three-event trace (the built CLI: module loading and one tiny read)
//     against a bare `node -e 0`: what the CLI adds to Node's own start.
//  2. Importing `@cg/schema/core` against importing `@cg/schema` (the root, with the zod schemas):
//     what loading zod costs, which the packages and the CLI no longer pay.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { report } from "./harness.js";
import { median } from "./process-harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const cliBin = resolve(here, "../../packages/cli/dist/bin.js");
const fixture = resolve(here, "../../fixtures/trace6/valid/blank-lines-crlf.jsonl");

/** The CPU time of the process that loads it, written to stderr as the process exits. */
const CPU_AT_EXIT = `process.on("exit", () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write("\\ncg-cpu-us " + (user + system) + "\\n");
});
`;

type Contender = readonly string[];

/** The CPU time in ns of one fresh `node` run of `args` (run in this folder, so @cg/* resolve). */
function cpuOfRun(hook: string, args: Contender): number {
  const child = spawnSync(process.execPath, ["--import", pathToFileURL(hook).href, ...args], {
    cwd: here,
    encoding: "utf8",
  });
  const match = /cg-cpu-us (\d+)/.exec(child.stderr);
  if (child.status !== 0 || match === null) {
    throw new Error(`cli-start: ${args.join(" ")} failed (${child.status}): ${child.stderr}`);
  }
  return Number(match[1]) * 1000;
}

const importing = (specifier: string): Contender => [
  "--input-type=module",
  "-e",
  `await import(${JSON.stringify(specifier)});`,
];

const contenders: Record<string, Contender> = {
  "cg-trace summary, 3 events": [cliBin, "summary", fixture],
  "bare node -e 0": ["-e", "0"],
  "import @cg/schema/core": importing("@cg/schema/core"),
  "import @cg/schema (zod)": importing("@cg/schema"),
};

export default async function cliStartBench(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), "cg-cli-start-"));
  try {
    const hook = join(scratch, "cpu-at-exit.mjs");
    writeFileSync(hook, CPU_AT_EXIT);
    const rounds = Number(process.env.CG_BENCH_ROUNDS ?? 15);
    const names = Object.keys(contenders);
    const times = new Map<string, number[]>(names.map((name) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      for (let offset = 0; offset < names.length; offset++) {
        const name = names[(round + offset) % names.length] as string;
        times.get(name)?.push(cpuOfRun(hook, contenders[name] as Contender));
      }
    }
    console.log(`process start: ${rounds} interleaved rounds, each a fresh process; its whole CPU time`);
    for (const name of names) {
      console.log(`  ${name.padEnd(28)} ${(median(times.get(name) ?? []) / 1e6).toFixed(1)} ms CPU`);
    }
    const pairs: [string, string, "speedup" | "cost", string][] = [
      ["cg-trace summary, 3 events", "bare node -e 0", "cost", "what the CLI adds to a Node start"],
      ["import @cg/schema/core", "import @cg/schema (zod)", "speedup", "the start without zod"],
    ];
    for (const [subject, baseline, mode, note] of pairs) {
      const subjectTimes = times.get(subject) ?? [];
      const baselineTimes = times.get(baseline) ?? [];
      const ratios = subjectTimes.map((time, index) =>
        mode === "speedup"
          ? (baselineTimes[index] as number) / time
          : time / (baselineTimes[index] as number),
      );
      report(
        {
          title: `process start — ${subject} vs ${baseline} (${note})`,
          subjectOpsPerSecond: 1e9 / median(subjectTimes),
          baselineOpsPerSecond: 1e9 / median(baselineTimes),
          ratio: median(ratios),
        },
        mode,
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
