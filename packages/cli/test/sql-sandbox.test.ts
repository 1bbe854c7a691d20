// `cg-trace sql` in process: the query is sandboxed (each escape one line, exit 2, nothing written),
// --unsafe-allow-external-access lifts it, paths are literal, folder symlinks stay inside.
import { copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "./run-in-process.js";
import { golden, scratchDirForFile } from "./test-files.js";

const scratch = scratchDirForFile("cg-cli-sql-sandbox-");
const minimal = join(fixturesDir, "valid/minimal-infer.jsonl");
const goldenRun = "run-4242-1754330400123456789";
const secret = join(scratch, "secret.txt");
writeFileSync(secret, "s3cr3t\n");
const literal = (path: string) => `'${path.replaceAll("'", "''")}'`;

async function expectRefused(argv: string[], pattern: RegExp): Promise<void> {
  const { exitCode, stdout, stderr } = await runInProcess(argv);
  expect(exitCode, stderr).toBe(2);
  expect(stdout).toBe("");
  expect(stderr).toMatch(pattern);
  expect(stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(stderr).not.toMatch(/internal error|\n\s+at /);
}

describe("the sandbox over traces", () => {
  const written = join(scratch, "written.csv");
  const cases: [string, RegExp][] = [
    ["SELECT content FROM read_text('/etc/passwd')", /^cg-trace: query failed: Permission Error: /],
    [`SELECT * FROM read_csv(${literal(secret)})`, /^cg-trace: query failed: Permission Error: /],
    [`COPY (SELECT 1) TO ${literal(written)}`, /^cg-trace: query (refused|failed)/],
    [`ATTACH ${literal(join(scratch, "x.duckdb"))}`, /^cg-trace: query refused: ATTACH statements/],
    ["INSTALL httpfs", /^cg-trace: query refused: LOAD statements/],
    ["SET enable_external_access = true", /^cg-trace: query refused: SET statements/],
    ["SELECT 1; SELECT 2", /^cg-trace: query refused: 2 statements given/],
  ];
  for (const [sql, pattern] of cases) {
    it(`refuses ${sql}`, async () => {
      await expectRefused(["sql", sql, golden], pattern);
      expect(existsSync(written)).toBe(false);
      expect(existsSync(join(scratch, "x.duckdb"))).toBe(false);
    });
  }

  it("runs several statements with --allow-multiple-statements", async () => {
    const { exitCode, stdout } = await runInProcess([
      "sql",
      "CREATE TEMP TABLE n AS SELECT count(*) AS c FROM ops; SELECT c FROM n",
      golden,
      "--allow-multiple-statements",
      "--csv",
    ]);
    expect(exitCode).toBe(0);
    expect(stdout).toBe("c\r\n1\r\n");
  });

  it("--unsafe-allow-external-access lifts it", async () => {
    const { exitCode, stdout } = await runInProcess([
      "sql",
      `SELECT content FROM read_text(${literal(secret)})`,
      golden,
      "--unsafe-allow-external-access",
      "--csv",
    ]);
    expect(exitCode).toBe(0);
    expect(stdout).toBe('content\r\n"s3cr3t\n"\r\n');
  });
});

describe("the sandbox over a dataset", () => {
  const dataset = join(scratch, "dataset");
  beforeAll(async () => {
    expect((await runInProcess(["export", golden, "--to", "parquet", "-o", dataset])).exitCode).toBe(0);
  });

  it("reads the dataset's files and nothing else, and writes none", async () => {
    const ok = await runInProcess(["sql", "SELECT run_id, op_name FROM ops", dataset, "--csv"]);
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toBe(`run_id,op_name\r\n${goldenRun},matmul\r\n`);
    await expectRefused(["sql", `SELECT * FROM read_text(${literal(secret)})`, dataset], /Permission Error/);
    // The run's one partition folder (cg-dataset/2 names it by a safe prefix and a digest).
    const [partition] = readdirSync(join(dataset, "ops"));
    const folder = join(dataset, "ops", partition as string);
    const before = readdirSync(folder);
    await expectRefused(
      ["sql", `COPY (SELECT 1) TO ${literal(join(folder, "extra.parquet"))}`, dataset],
      /^cg-trace: query refused: COPY statements/,
    );
    expect(readdirSync(folder)).toEqual(before);
  });
});

describe("inputs", () => {
  it("run[1].jsonl is that file; patterns only with --glob", async () => {
    const dir = join(scratch, "literal");
    mkdirSync(dir);
    copyFileSync(golden, join(dir, "run[1].jsonl"));
    copyFileSync(minimal, join(dir, "run1.jsonl"));
    const literalRead = await runInProcess([
      "sql",
      "SELECT run_id FROM runs",
      join(dir, "run[1].jsonl"),
      "--csv",
    ]);
    expect(literalRead.stdout).toBe(`run_id\r\n${goldenRun}\r\n`);
    const noGlob = join(dir, "run*.jsonl");
    await expectRefused(
      ["sql", "SELECT 1", noGlob],
      /no such file or folder \(a pattern\? --glob matches it\)\n$/,
    );
    const globbed = await runInProcess(["sql", "SELECT count(*) AS n FROM runs", noGlob, "--glob", "--csv"]);
    expect(globbed.stdout).toBe("n\r\n2\r\n");
  });

  it("a symlink out of a folder is skipped with a line; --follow-symlinks reads it", async () => {
    const dir = join(scratch, "linked");
    mkdirSync(dir);
    copyFileSync(golden, join(dir, "golden.jsonl"));
    symlinkSync(minimal, join(dir, "outside.jsonl"));
    const skipped = await runInProcess(["sql", "SELECT count(*) AS n FROM runs", dir, "--csv"]);
    expect(skipped.exitCode).toBe(0);
    expect(skipped.stdout).toBe("n\r\n1\r\n");
    expect(skipped.stderr).toBe(
      `cg-trace: skipped ${join(dir, "outside.jsonl")}: a symbolic link out of ${dir} (--follow-symlinks follows it)\n`,
    );
    const followed = await runInProcess([
      "sql",
      "SELECT count(*) AS n FROM runs",
      dir,
      "--follow-symlinks",
      "--csv",
    ]);
    expect(followed.stdout).toBe("n\r\n2\r\n");
    expect(followed.stderr).toBe("");
  });

  it("every input rejected is exit 2 after the skipped lines", async () => {
    const notes = join(scratch, "notes.txt");
    writeFileSync(notes, "not a trace\n");
    const { exitCode, stdout, stderr } = await runInProcess(["sql", "SELECT count(*) FROM runs", notes]);
    expect(exitCode).toBe(2);
    expect(stdout).toBe("");
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^cg-trace: skipped .*notes\.txt:1: invalid_json: /);
    expect(lines[1]).toBe("cg-trace: every input was rejected (1 trace); nothing to query");
  });
});

describe("dataset folders with pattern characters in their names", () => {
  /**
   * The dataset's own views (open-dataset) still hand DuckDB a pattern built from the folder name:
   * the sandbox then refuses the siblings' files, so the answer is right or one line, exit 2,
   * never the siblings' rows and never an internal error.
   */
  async function expectOwnRowsOrOneLine(folder: string): Promise<void> {
    const { exitCode, stdout, stderr } = await runInProcess([
      "sql",
      "SELECT run_id FROM runs",
      folder,
      "--csv",
    ]);
    if (exitCode === 0) {
      expect(stdout).toBe(`run_id\r\n${goldenRun}\r\n`);
      return;
    }
    expect(exitCode).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).not.toMatch(/internal error|\n\s+at /);
  }

  it("ds* does not read its siblings, ds[x] is no internal error", async () => {
    const parent = join(scratch, "hostile-datasets");
    mkdirSync(parent);
    for (const [name, trace] of [
      ["ds*", golden],
      ["dsX", minimal],
      ["ds[x]", golden],
      ["dsx", minimal],
    ] as const) {
      const exported = await runInProcess(["export", trace, "--to", "parquet", "-o", join(parent, name)]);
      expect(exported.exitCode, exported.stderr).toBe(0);
    }
    await expectOwnRowsOrOneLine(join(parent, "ds*"));
    await expectOwnRowsOrOneLine(join(parent, "ds[x]"));
  });
});
