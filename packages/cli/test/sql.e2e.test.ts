// `cg-trace sql` and `export` through the built binary, as a user runs them: DuckDB loads from the
// installed package, errors are one line with exit status 2.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, runBinary } from "./built-binary.js";
import { golden, scratchDirForFile } from "./test-files.js";

const scratch = scratchDirForFile("cg-cli-sql-e2e-");

beforeAll(ensureBuilt, 300_000);

describe("cg-trace sql / export (built binary)", () => {
  it("exports a dataset and queries it", () => {
    const exported = runBinary(["export", golden, "--to", "parquet", "-o", "dataset"], { cwd: scratch });
    expect(exported.stderr).toBe("");
    expect(exported.status).toBe(0);
    const queried = runBinary(["sql", "SELECT op_name, storage_bytes FROM ops", "dataset", "--csv"], {
      cwd: scratch,
    });
    expect(queried.status).toBe(0);
    expect(queried.stdout).toBe("op_name,storage_bytes\r\nmatmul,4096\r\n");
  });

  it("a query error is one line and exit 2", () => {
    const failed = runBinary(["sql", "SELECT FROM WHERE", golden], { cwd: scratch });
    expect(failed.status).toBe(2);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toMatch(/^cg-trace: query failed: Parser Error: /);
    expect(failed.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("the installed build runs the query sandboxed: an escape is one line, exit 2", () => {
    const escaped = runBinary(["sql", "SELECT content FROM read_text('/etc/passwd')", golden], {
      cwd: scratch,
    });
    expect(escaped.status).toBe(2);
    expect(escaped.stdout).toBe("");
    expect(escaped.stderr).toMatch(
      /^cg-trace: query failed: Permission Error: Cannot access file "\/etc\/passwd"/,
    );
    // DuckDB refuses the file while it binds the statement, before its type is checked.
    const copied = runBinary(["sql", "COPY ops TO 'ops.csv'", golden], { cwd: scratch });
    expect(copied.status).toBe(2);
    expect(copied.stderr).toMatch(/^cg-trace: query failed: Permission Error: Cannot access file "ops\.csv"/);
    expect(existsSync(join(scratch, "ops.csv"))).toBe(false);
    const attached = runBinary(["sql", "ATTACH 'x.db'", golden], { cwd: scratch });
    expect(attached.status).toBe(2);
    expect(attached.stderr).toMatch(
      /^cg-trace: query refused: ATTACH statements are not allowed in the sandbox/,
    );
    expect(attached.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(existsSync(join(scratch, "x.db"))).toBe(false);
  });
});
