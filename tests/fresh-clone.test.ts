// A fresh clone is the whole project: `git clone` of the committed tree into a folder with nothing
// beside it installs, and the tests that read the conformance fixtures pass there. A test, spec link
// or script that reaches outside the checkout (into the shared folder that first held the spec and
// fixtures) fails here, on CI's clean clone too, where a copy of that folder may still lie beside it.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "./workspace-packages.js";

const parent = mkdtempSync(join(tmpdir(), "cg-fresh-clone-"));
const clone = join(parent, "cg-trace");
/** The sibling folder the spec and fixtures were first handed over in (spelled so this file does not match). */
const outsidePath = ["..", "shared"].join("/");

/** This process's environment without the variables vitest sets for its own workers. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: "true", NO_COLOR: "1", FORCE_COLOR: "0" };
  for (const key of Object.keys(env)) {
    if (key.startsWith("VITEST") && key !== "VITEST_MAX_WORKERS") delete env[key];
  }
  delete env.CG_TEST_REPORT;
  return env;
}

function run(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd: clone, env: childEnv(), encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

beforeAll(() => {
  execFileSync("git", ["clone", "--quiet", "--no-hardlinks", repoRoot, clone], { stdio: "pipe" });
  // The store that installed this checkout already holds every package of the same lockfile.
  const install = run("pnpm", ["install", "--frozen-lockfile", "--prefer-offline"]);
  expect(install.status, install.output).toBe(0);
}, 600_000);
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe("a fresh clone with nothing beside it", () => {
  it("stands alone: nothing lies beside it and no tracked file names the shared folder", () => {
    expect(readdirSync(parent)).toEqual(["cg-trace"]);
    const grep = run("git", ["grep", "-n", "-F", "-e", outsidePath, "--", ".", ":!pnpm-lock.yaml"]);
    // git grep exits 1 when nothing matches.
    expect(grep.output.trim()).toBe("");
    expect(grep.status).toBe(1);
  });

  it("holds the spec and every fixture its manifest names, with matching digests", () => {
    const check = run("node", ["scripts/fixture-digests.mjs"]);
    expect(check.status, check.output).toBe(0);
    expect(readdirSync(join(clone, "spec"))).toContain("trace6.md");
  });

  it("passes the fixture-driven tests of schema, memory, parser, writer and the third-party reader", () => {
    // The third-party reader imports the published entry of @cg/schema: build that one package.
    const build = run("pnpm", [
      "exec",
      "turbo",
      "run",
      "build",
      "--filter",
      "@cg/schema",
      "--output-logs=errors-only",
    ]);
    expect(build.status, build.output).toBe(0);
    const projects = ["@cg/schema", "@cg/memory", "@cg/parser", "@cg/writer", "third-party-reader"];
    const files = [
      "decode-trace-line.fixtures",
      "encode-events",
      "json-schema",
      "analyze-memory.fixtures",
      "parse-trace.fixtures",
      "analyses.fixtures",
      "golden-and-reference",
      "read.test",
    ];
    const tests = run("pnpm", [
      "exec",
      "vitest",
      "run",
      ...projects.flatMap((project) => ["--project", project]),
      ...files,
    ]);
    expect(tests.status, tests.output).toBe(0);
    // Every file named ran: a filter that matched nothing would pass vacuously.
    const ran = tests.output.replace(/\u001b\[[0-9;]*m/g, "").match(/Test Files\s+(\d+) passed/);
    expect(Number(ran?.[1]), tests.output).toBe(files.length);
  });
});
