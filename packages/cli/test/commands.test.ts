import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { type ChromeTrace, checkPerfettoRules } from "./perfetto-rules.js";
import { runInProcess } from "./run-in-process.js";
import { scratchDirForFile } from "./test-files.js";

const fixture = (name: string): string => relative(process.cwd(), join(fixturesDir, name));
const scratch = scratchDirForFile("cg-cli-commands-");

describe("cg-trace commands (in process)", () => {
  it("summary prints provenance, health, costs, memory and gradients", async () => {
    const { exitCode, stdout } = await runInProcess(["summary", fixture("valid/golden-train.jsonl")]);
    expect(exitCode).toBe(0);
    expect(stdout).toContain("run-4242-1754330400123456789");
    expect(stdout).toContain("Health: TRUSTED (0 error(s), 0 warning(s))");
    expect(stdout).toContain("Measured total: 90.000 µs (90000 ns)");
    expect(stdout).toMatch(/activation\s+4.00 KiB/);
    expect(stdout).toMatch(/cuda:0\s+1\s+1.00 GiB/);
    expect(stdout).toMatch(/vb\/encoder.weight\s+present\s+0.420000/);
    expect(stdout).toMatch(/vb\/head.bias\s+missing/);
    expect(stdout).not.toContain("\u001b[");
  });

  it("summary --json has the documented shape", async () => {
    const { exitCode, stdout } = await runInProcess([
      "summary",
      fixture("valid/golden-train.jsonl"),
      "--json",
    ]);
    expect(exitCode).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.schema).toBe("cg-trace/summary/1");
    expect(json.health.trusted).toBe(true);
    expect(json.summary).toMatchObject({ op_count: 1, total_ns: 90000, span_count: 5, peak_bytes: 4096 });
    expect(json.memory.peak_by_category).toEqual({ activation: 4096 });
    expect(json.device_memory[0]).toMatchObject({ device: "cuda:0", capacity_bytes: 25769803776 });
    expect(json.gradients).toMatchObject({ count: 2, attention_count: 1 });
    expect(json.top_spans[0].self_ns).toBeGreaterThan(0);
  });

  it("validate: 0 trusted, 1 untrusted, 2 parse error with file:line", async () => {
    const trusted = await runInProcess(["validate", fixture("valid/golden-train.jsonl")]);
    expect(trusted.exitCode).toBe(0);
    expect(trusted.stdout).toContain("valid, trusted");
    const untrusted = await runInProcess(["validate", fixture("health/h07-root-count.jsonl")]);
    expect(untrusted.exitCode).toBe(1);
    expect(untrusted.stdout).toMatch(
      /h07-root-count.jsonl: root_count: error: expected exactly one root span, found 2/,
    );
    const broken = await runInProcess(["validate", fixture("invalid/n15-not-json.jsonl")]);
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toMatch(/n15-not-json.jsonl:\d+: invalid_json: /);
  });

  it("query renders every kind and --json wraps health and result", async () => {
    for (const kind of ["slowest", "heaviest", "memory", "efficiency", "spans", "tensors", "gradients"]) {
      const text = await runInProcess(["query", fixture("valid/golden-train.jsonl"), "--kind", kind]);
      expect(text.exitCode, kind).toBe(0);
      const json = await runInProcess([
        "query",
        fixture("valid/golden-train.jsonl"),
        "--kind",
        kind,
        "--json",
        "--limit",
        "3",
      ]);
      expect(JSON.parse(json.stdout).result.kind).toBe(kind);
    }
    const bad = await runInProcess(["query", fixture("valid/golden-train.jsonl"), "--kind", "fastest"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--kind must be one of slowest, heaviest");
  });

  it("compare reports comparability, deltas and gradient changes", async () => {
    const same = await runInProcess([
      "compare",
      fixture("valid/golden-train.jsonl"),
      fixture("valid/golden-train.jsonl"),
      "--json",
    ]);
    expect(same.exitCode).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ comparable: true, total_delta_ns: 0 });
    const pair = [fixture("valid/golden-train.jsonl"), fixture("health/h07-root-count.jsonl")];
    const different = await runInProcess(["compare", ...pair]);
    expect(different.exitCode).toBe(2);
    expect(different.stdout).toBe("");
    expect(different.stderr).toMatch(
      /^cg-trace: compare: the traces are not comparable: candidate trace is structurally untrusted.* \(--force compares them anyway\)\n$/,
    );
    const forced = await runInProcess(["compare", ...pair, "--force"]);
    expect(forced.exitCode).toBe(0);
    expect(forced.stdout).toContain("NOT COMPARABLE");
    expect(forced.stdout).toContain("What explains the change");
    const annotated = await runInProcess(["compare", ...pair, "--format", "github"]);
    expect(annotated.exitCode).toBe(2);
    expect(annotated.stdout).toMatch(
      /^::error title=cg-trace compare%3A not comparable::candidate trace is structurally untrusted/,
    );
  });

  it("convert writes a Perfetto file that follows every rule", async () => {
    const output = join(scratch, "golden.perfetto.json");
    const { exitCode, stdout } = await runInProcess([
      "convert",
      fixture("valid/golden-train.jsonl"),
      "--to",
      "perfetto",
      "-o",
      output,
    ]);
    expect(exitCode).toBe(0);
    expect(stdout).toContain("5 spans on 1 track");
    checkPerfettoRules(JSON.parse(readFileSync(output, "utf8")) as ChromeTrace);
    const missingOutput = await runInProcess([
      "convert",
      fixture("valid/golden-train.jsonl"),
      "--to",
      "perfetto",
    ]);
    expect(missingOutput.exitCode).toBe(2);
  });

  it("usage errors exit 2 with a clear message", async () => {
    const unknown = await runInProcess(["frobnicate"]);
    expect(unknown).toMatchObject({
      exitCode: 2,
      stderr: "cg-trace: unknown command 'frobnicate'; see cg-trace --help\n",
    });
    const misspelt = await runInProcess(["summry", "a.jsonl"]);
    expect(misspelt).toMatchObject({
      exitCode: 2,
      stderr: "cg-trace: unknown command 'summry' (did you mean summary?); see cg-trace --help\n",
    });
    const flag = await runInProcess(["summary", "a.jsonl", "--jsn"]);
    expect(flag).toMatchObject({
      exitCode: 2,
      stderr:
        "cg-trace: summary: unknown option '--jsn' (did you mean --json?); see cg-trace summary --help\n",
    });
    const missing = await runInProcess(["summary"]);
    expect(missing).toMatchObject({
      exitCode: 2,
      stderr: "cg-trace: summary: missing required argument 'trace'; see cg-trace summary --help\n",
    });
    const extra = await runInProcess(["compare", "a", "b", "c"]);
    expect(extra.exitCode).toBe(2);
    expect(extra.stderr).toMatch(/^cg-trace: compare: too many arguments.*\n$/);
    expect((await runInProcess(["summary", "a.jsonl", "--bogus"])).exitCode).toBe(2);
    const noValue = await runInProcess(["summary", "a.jsonl", "--limit"]);
    expect(noValue).toMatchObject({ exitCode: 2 });
    expect(noValue.stderr).toContain("--limit <N>' argument missing");
    expect((await runInProcess(["summary", "a.jsonl", "--limit", "0"])).stderr).toContain("positive integer");
    const help = await runInProcess(["query", "--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain("Usage: cg-trace query [options] <trace>");
    expect(help.stdout).toMatch(/--kind <K> +required: slowest, heaviest/);
    const main = await runInProcess([]);
    expect(main.exitCode).toBe(0);
    expect(main.stdout).toMatch(/Commands:\n(.|\n)*summary \[options\] <trace>/);
    expect((await runInProcess(["help", "summary"])).stdout).toContain("Usage: cg-trace summary");
  });
});
