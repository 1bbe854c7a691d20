// `cg-trace sql` and `cg-trace export` in process: tables, machine output, the dataset round trip,
// and every bad input as one line with exit status 2 (no stack trace).
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { runInProcess } from "./run-in-process.js";
import { golden, scratchDirForFile } from "./test-files.js";

const scratch = scratchDirForFile("cg-cli-sql-");

const traces = join(scratch, "traces");
mkdirSync(traces);
copyFileSync(golden, join(traces, "golden.jsonl"));
copyFileSync(join(fixturesDir, "valid/minimal-infer.jsonl"), join(traces, "minimal.jsonl"));

function expectOneLineError(stderr: string, pattern: RegExp): void {
  expect(stderr).toMatch(pattern);
  expect(stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe("cg-trace sql", () => {
  it("prints a table with exact u64 values", async () => {
    const { exitCode, stdout, stderr } = await runInProcess([
      "sql",
      "SELECT op_name, calls, total_ns, bytes FROM op_stats ORDER BY op_name",
      golden,
    ]);
    expect(stderr).toBe("");
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/op_name\s+calls\s+total_ns\s+bytes/);
    expect(stdout).toMatch(/matmul\s+1\s+1200\s+4096/);
    expect(stdout).toContain("1 row");
  });

  it("--json and --csv give machine output; NULL stays null", async () => {
    const json = await runInProcess([
      "sql",
      "SELECT run_id, candle_version, tags FROM runs",
      golden,
      "--json",
    ]);
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      columns: [
        { name: "run_id", type: "VARCHAR" },
        { name: "candle_version", type: "VARCHAR" },
        { name: "tags", type: "MAP(VARCHAR, VARCHAR)" },
      ],
      rows: [
        {
          run_id: "run-4242-1754330400123456789",
          candle_version: null,
          tags: { physical_batch: "128", precision: "f32" },
        },
      ],
    });
    const big = await runInProcess(["sql", "SELECT 18446744073709551615::UBIGINT AS u", golden, "--json"]);
    expect(big.stdout).toContain('"u": 18446744073709551615');
    const csv = await runInProcess(["sql", "SELECT op_name, shape, output FROM ops", golden, "--csv"]);
    expect(csv.stdout).toBe('op_name,shape,output\r\nmatmul,"[32,32]",t2\r\n');
  });

  it("--schema lists the tables and views", async () => {
    const { exitCode, stdout } = await runInProcess(["sql", "--schema", traces]);
    expect(exitCode).toBe(0);
    expect(stdout).toContain("table runs\n");
    expect(stdout).toContain("view rank_skew\n");
    expect(stdout).toMatch(/\n {2}duration_ns {2}UBIGINT\n/);
  });

  it("a query error is one line, exit 2, no stack trace", async () => {
    const { exitCode, stderr, stdout } = await runInProcess(["sql", "SELECT nope FROM ops", golden]);
    expect(exitCode).toBe(2);
    expect(stdout).toBe("");
    expectOneLineError(stderr, /^cg-trace: .*nope/);
  });

  it("a broken trace among good ones is skipped with its line; --strict fails", async () => {
    const mixed = join(scratch, "mixed");
    mkdirSync(mixed);
    copyFileSync(golden, join(mixed, "good.jsonl"));
    copyFileSync(join(fixturesDir, "invalid/n02-missing-meta.jsonl"), join(mixed, "broken.jsonl"));
    const lenient = await runInProcess(["sql", "SELECT count(*) AS runs FROM runs", mixed]);
    expect(lenient.exitCode).toBe(0);
    expect(lenient.stdout).toMatch(/runs\s*\n.*\n\s+1\n/);
    expectOneLineError(lenient.stderr, /^cg-trace: skipped .*broken\.jsonl.*: missing_meta: /);
    const strict = await runInProcess(["sql", "SELECT 1", mixed, "--strict"]);
    expect(strict.exitCode).toBe(2);
    expectOneLineError(strict.stderr, /^cg-trace: .*broken\.jsonl.*meta/);
  });

  it("an empty folder, a path that is not a trace, missing inputs", async () => {
    const empty = join(scratch, "empty");
    mkdirSync(empty);
    const none = await runInProcess(["sql", "SELECT 1", empty]);
    expect(none.exitCode).toBe(2);
    expectOneLineError(none.stderr, /the folder holds no \.jsonl trace/);
    const notes = join(scratch, "notes.txt");
    writeFileSync(notes, "not a trace\n");
    const notATrace = await runInProcess(["sql", "SELECT count(*) FROM runs", notes, golden]);
    expect(notATrace.exitCode).toBe(0);
    expectOneLineError(notATrace.stderr, /^cg-trace: skipped .*notes\.txt:1: invalid_json: /);
    const missing = await runInProcess(["sql", "SELECT 1"]);
    expect(missing.exitCode).toBe(2);
    expectOneLineError(missing.stderr, /give at least one trace/);
  });
});

describe("cg-trace export", () => {
  it("writes a dataset that cg-trace sql reads, and replaces on re-export", async () => {
    const out = join(scratch, "dataset");
    const first = await runInProcess(["export", traces, "--to", "parquet", "-o", out]);
    expect(first.stderr).toBe("");
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/^exported 2 runs to /);
    expect(first.stdout).toMatch(/ {2}spans: 6 rows\n/);
    const again = await runInProcess(["export", golden, "--to", "parquet", "-o", out]);
    expect(again.stdout).toMatch(/^exported 1 run \(1 replaced\) to /);
    const query = await runInProcess(["sql", "SELECT count(*) AS n FROM spans", out, "--csv"]);
    expect(query.exitCode).toBe(0);
    expect(query.stdout).toBe("n\r\n6\r\n");
  });

  it("--partition-by correlation_id nests run_id below correlation_id", async () => {
    const out = join(scratch, "by-correlation");
    const { exitCode } = await runInProcess([
      "export",
      golden,
      "--to",
      "parquet",
      "-o",
      out,
      "--partition-by",
      "correlation_id",
    ]);
    expect(exitCode).toBe(0);
    const query = await runInProcess(["sql", "SELECT correlation_id, run_id FROM runs", out, "--csv"]);
    expect(query.stdout).toBe(
      "correlation_id,run_id\r\ndemo::train::update/update-1,run-4242-1754330400123456789\r\n",
    );
  });

  it("bad usage and a dataset of another layout version are one line, exit 2", async () => {
    const noFormat = await runInProcess(["export", golden, "-o", join(scratch, "x")]);
    expect(noFormat.exitCode).toBe(2);
    expectOneLineError(noFormat.stderr, /--to is required/);
    const other = join(scratch, "other-layout");
    mkdirSync(other);
    writeFileSync(join(other, "_cg_dataset.json"), '{"layout":"cg-dataset/9","partition_by":["run_id"]}');
    const exported = await runInProcess(["export", golden, "--to", "parquet", "-o", other]);
    expect(exported.exitCode).toBe(2);
    expectOneLineError(
      exported.stderr,
      /dataset layout "cg-dataset\/9" is not cg-dataset\/2 or cg-dataset\/1/,
    );
    const queried = await runInProcess(["sql", "SELECT 1", other]);
    expect(queried.exitCode).toBe(2);
    expectOneLineError(
      queried.stderr,
      /dataset layout "cg-dataset\/9" is not cg-dataset\/2 or cg-dataset\/1/,
    );
  });
});

describe("cg-trace export failures", () => {
  it("every trace skipped: exit 2, one line, no dataset left", async () => {
    const broken = join(scratch, "broken.jsonl");
    writeFileSync(broken, "{not json\n");
    const out = join(scratch, "all-skipped");
    const result = await runInProcess(["export", broken, "--to", "parquet", "-o", out]);
    expect(result.exitCode).toBe(2);
    expectOneLineError(result.stderr, /every input was rejected \(1 trace; .*broken\.jsonl:1: /);
    expect(existsSync(out)).toBe(false);
  });

  it("a failure while writing is one line naming the step, exit 2, no internal error", async () => {
    const notAFolder = join(scratch, "a-file");
    writeFileSync(notAFolder, "x");
    const result = await runInProcess(["export", golden, "--to", "parquet", "-o", join(notAFolder, "ds")]);
    expect(result.exitCode).toBe(2);
    expectOneLineError(result.stderr, /^cg-trace: export to .*a-file\/ds failed, the dataset is unchanged: /);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it("a killed first export is named as such by cg-trace sql", async () => {
    const out = join(scratch, "killed-first");
    mkdirSync(join(out, "_cg_work-g000001-0badf00d"), { recursive: true });
    const result = await runInProcess(["sql", "SELECT 1", out]);
    expect(result.exitCode).toBe(2);
    expectOneLineError(result.stderr, /the first export into this folder did not finish/);
  });
});

describe("progress", () => {
  const runWithTerminal = (argv: string[]) => runInProcess(argv, { cwd: scratch, stderrIsTty: true });

  it("shows traces read and exported on a terminal's stderr, then clears the line", async () => {
    const read = await runWithTerminal(["sql", "SELECT count(*) FROM runs", traces]);
    expect(read.exitCode).toBe(0);
    expect(read.stderr).toBe("\rreading traces: 1/2\rreading traces: 2/2\r\u001b[K");
    const exported = await runWithTerminal(["export", traces, "--to", "parquet", "-o", join(scratch, "tty")]);
    expect(exported.exitCode).toBe(0);
    expect(exported.stderr).toBe("\rexporting traces: 1/2\rexporting traces: 2/2\r\u001b[K");
  });
});
