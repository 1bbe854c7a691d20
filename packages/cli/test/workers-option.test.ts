// `--workers N` decodes a large trace on N threads and prints exactly what one thread prints:
// verdicts, diagnostics with their line numbers, exit codes and every summary figure.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { runInProcess } from "./run-in-process.js";
import { scratchDirForFile } from "./test-files.js";

const directory = scratchDirForFile("cg-workers-");

/** The golden trace with its body events repeated (about 500 KB), optionally a bad line in the middle. */
function repeatedTrace(name: string, badLine?: string): string {
  const lines = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"), "utf8").trimEnd().split("\n");
  const body = lines.filter((line) => /"kind":"(op|tensor|memory|gradient|device_memory)"/.test(line));
  const repeated: string[] = [];
  for (let copy = 0; copy < 300; copy++) {
    for (const line of body) repeated.push(line);
    if (badLine !== undefined && copy === 150) repeated.push(badLine);
  }
  // Before the last four span_end lines, inside the spans.
  lines.splice(lines.length - 4, 0, ...repeated);
  const path = join(directory, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

// Every file is read in parallel, however small (the default is 32 MiB).
const env = { CG_TRACE_PARALLEL_MIN_MB: "0" };

async function expectSameOutput(args: string[]): Promise<void> {
  const one = await runInProcess([...args, "--workers", "1"], { env });
  const two = await runInProcess([...args, "--workers", "2"], { env });
  expect(two).toEqual(one);
}

// Each run starts its threads; a loaded machine makes that slow.
describe("--workers", { timeout: 120_000 }, () => {
  it("validate and summary print what one thread prints", async () => {
    const path = repeatedTrace("repeated.jsonl");
    await expectSameOutput(["validate", path]);
    await expectSameOutput(["summary", path]);
    await expectSameOutput(["summary", path, "--json", "--limit", "3"]);
    const { stdout } = await runInProcess(["summary", path, "--json", "--workers", "2"], { env });
    expect(JSON.parse(stdout).summary.op_count).toBe(301);
  });

  it("reports a bad line in the middle with the line number one thread gives, strict and lenient", async () => {
    const path = repeatedTrace("bad-line.jsonl", '{"kind":"op","span_id":"s3"}');
    const strict = await runInProcess(["validate", path, "--workers", "2"], { env });
    expect(strict.exitCode).toBe(2);
    await expectSameOutput(["validate", path]);
    await expectSameOutput(["validate", path, "--lenient"]);
    const lenient = await runInProcess(["validate", path, "--lenient", "--workers", "2"], { env });
    expect(lenient.stdout).toMatch(/bad-line\.jsonl:\d{4}: /);
  });

  it("refuses a count that is not a positive integer", async () => {
    const path = join(fixturesDir, "valid/golden-train.jsonl");
    const { exitCode, stderr } = await runInProcess(["validate", path, "--workers", "0"]);
    expect(exitCode).toBe(2);
    expect(stderr).toContain("--workers must be a positive integer");
  });
});
