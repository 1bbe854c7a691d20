// Output on a real terminal: the built binary runs inside a pseudo-terminal (util-linux `script`)
// sized with stty, so process.stdout.columns is what a user's terminal would report and stderr is
// a terminal too (progress is shown only then).
import { spawnSync } from "node:child_process";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import stringWidth from "string-width";
import { beforeAll, describe, expect, it } from "vitest";
import { generateWriterShapedTrace } from "../../../bench/src/support/writer-shaped-trace.js";
import { bin, ensureBuilt, runBinary } from "./built-binary.js";
import { runInProcess } from "./run-in-process.js";
import { scratchDirForFile } from "./test-files.js";

const scratch = scratchDirForFile("cg-cli-narrow-");
const hasScript = spawnSync("script", ["--version"]).status === 0;

const CJK = "自注意力/多头注意力/矩阵乘法";
const LONG = "model/encoder/layer.11/attention/self/query/MatMul";

function writeTrace(path: string): void {
  const lines = [
    `{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"2025-01-01T00:00:00.000Z","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}`,
    `{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}`,
  ];
  let timestamp = 100;
  for (let call = 0; call < 6; call += 1) {
    for (const [index, name] of [CJK, LONG, "relu"].entries()) {
      lines.push(
        `{"kind":"op","span_id":"s1","op_name":${JSON.stringify(name)},"shape":[2,3],"dtype":"f32","device":"cpu","duration_ns":${(3 - index) * 1000 + call},"timestamp_ns":${timestamp}}`,
      );
      timestamp += 10_000;
    }
  }
  lines.push(`{"kind":"span_end","id":"s1","duration_ns":${timestamp}}`);
  writeFileSync(path, `${lines.join("\n")}\n`);
}

/** Runs cg-trace with stdout and stderr on a terminal of `columns` columns; returns its raw output. */
function terminalOutput(columns: number, args: string[]): string {
  const command = `stty cols ${columns} rows 50; exec '${process.execPath}' '${bin}' ${args.map((arg) => `'${arg}'`).join(" ")}`;
  const result = spawnSync("script", ["-qec", command, "/dev/null"], {
    cwd: scratch,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "" },
    timeout: 120_000,
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

/** Runs cg-trace on a terminal of `columns` columns; returns its lines. */
function onTerminal(columns: number, args: string[]): string[] {
  return terminalOutput(columns, args).replace(/\r/g, "").trimEnd().split("\n");
}

beforeAll(() => {
  ensureBuilt();
  writeTrace(join(scratch, "cjk.jsonl"));
  // Above the 64 MiB from which reads show progress on a terminal.
  generateWriterShapedTrace(join(scratch, "large.jsonl"), 72 * 1024 * 1024);
}, 300_000);

describe("tables fit the terminal (built binary in a pseudo-terminal)", () => {
  it.runIf(hasScript)(
    "query --kind ops on 60 columns: every table line fits, CJK and long names cut in the middle",
    () => {
      const lines = onTerminal(60, ["query", "--kind", "ops", "cjk.jsonl"]);
      const header = lines.findIndex((line) => line.trimStart().startsWith("op "));
      expect(header).toBeGreaterThan(0);
      const table = lines.slice(header);
      for (const line of table) expect(stringWidth(line), line).toBeLessThanOrEqual(60);
      // The spread and byte columns went; what is left, and the note saying so.
      expect(table[0]!.trim().split(/\s{2,}/)).toEqual(["op", "calls", "total", "mean", "% measured"]);
      expect(table.slice(-2).join(" ")).toBe(
        "  (left out to fit 60 columns: min, p50, p95, max, output,   inputs)",
      );
      // Costliest first; each name keeps its start and its end; numbers are whole.
      expect(table[2]).toMatch(/^ {2}自注意力\/…矩阵乘法 +6 +18\.015 µs +3\.002 µs +\d+\.\d%$/);
      expect(table[3]).toMatch(/^ {2}model\/enc…y\/MatMul +6 +12\.015 µs +2\.002 µs +\d+\.\d%$/);
      expect(table[4]).toMatch(/^ {2}relu +6 +6\.015 µs +1\.002 µs +\d+\.\d%$/);
    },
  );

  it.runIf(hasScript)("on a wide terminal nothing is left out or cut", () => {
    const lines = onTerminal(200, ["query", "--kind", "ops", "cjk.jsonl"]);
    const text = lines.join("\n");
    expect(text).toContain(CJK);
    expect(text).toContain(LONG);
    expect(text).not.toContain("left out");
  });

  it("piped output keeps every column and whole names", () => {
    const result = runBinary(["query", "--kind", "ops", "cjk.jsonl"], { cwd: scratch });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(CJK);
    expect(result.stdout).toContain(LONG);
    expect(result.stdout).toMatch(/ min +p50 +p95 +max +% measured +output +inputs\n/);
    expect(result.stdout).not.toContain("left out");
  });

  it.runIf(hasScript)(
    "reading a large trace shows phase, share and bytes on the terminal, then clears the line",
    () => {
      const output = terminalOutput(100, ["validate", "large.jsonl"]);
      const updates = output.split("\r\u001b[K").filter((part) => part.startsWith("reading"));
      expect(updates.length).toBeGreaterThan(10);
      const percents = updates.map((line) => Number(/^reading large\.jsonl: (\d+)% \(/.exec(line)?.[1]));
      expect(percents.every((percent, index) => index === 0 || percent > percents[index - 1]!)).toBe(true);
      expect(percents.at(-1)).toBe(100);
      // The rate shows once a quarter second has passed, which a fast machine may not reach.
      for (const line of updates) {
        expect(line).toMatch(
          /^reading large\.jsonl: \d+% \([\d.]+ [KMG]?i?B of 7\d\.\d\d MiB\)( at [\d.]+ [KMG]?i?B\/s, (under 1 s|about [\d a-z]+) left)?$/,
        );
      }
      expect(updates.at(-1)).toMatch(/^reading large\.jsonl: 100% \((7\d\.\d\d MiB) of \1\)/);
      // The line is cleared before the verdict, which stands alone.
      expect(output).toMatch(/\r\u001b\[Klarge\.jsonl: valid, trusted/);
    },
    180_000,
  );

  it("the progress line gives the rate and time left by the clock it is given", async () => {
    // A clock that moves 50 ms at each look: the line shows a rate from the first quarter second on.
    let clock = 0;
    const now = () => {
      clock += 50;
      return clock;
    };
    const path = join(scratch, "large.jsonl");
    const result = await runInProcess(["validate", path], { stderrIsTty: true, now });
    expect(result.exitCode).toBe(0);
    const updates = result.stderr.split("\r\u001b[K").filter((part) => part.startsWith("reading"));
    const withRate = updates.filter((line) =>
      / at [\d.]+ [KMG]?i?B\/s, (under 1 s|about [\d a-z]+) left$/.test(line),
    );
    // The first four looks come before 250 ms; every later line has a rate.
    expect(updates.length - withRate.length).toBe(4);
    // The last update is the clock's look number `updates.length`: 50 ms each since the start.
    const mib = statSync(path).size / 2 ** 20;
    const rate = (mib / (updates.length * 0.05)).toFixed(2);
    expect(updates.at(-1)).toBe(
      `reading ${path}: 100% (${mib.toFixed(2)} MiB of ${mib.toFixed(2)} MiB) at ${rate} MiB/s, under 1 s left`,
    );
  });
});
