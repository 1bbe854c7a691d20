// Runs read.mjs as a real child process against the BUILT @cg/schema, as a third party would.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = fileURLToPath(new URL(".", import.meta.url));
const script = join(here, "read.mjs");
const scratch = mkdtempSync(join(tmpdir(), "third-party-reader-"));

beforeAll(() => {
  if (!existsSync(join(here, "../../packages/schema/dist/index.js"))) {
    execFileSync("pnpm", ["--filter", "@cg/schema", "build"], { cwd: here, stdio: "ignore" });
  }
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(...args: string[]) {
  return spawnSync("node", [script, ...args], { cwd: here, encoding: "utf8" });
}

describe("third-party reader", () => {
  it("counts the golden trace's events by kind", () => {
    const result = run();
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout.trim().split("\n")).toEqual([
      "entrypoint demo::train::update",
      "meta 1",
      "span_start 5",
      "span_end 5",
      "op 1",
      "tensor 1",
      "memory 2",
      "device_memory 1",
      "gradient 2",
      "edge 0",
    ]);
  });

  it("reads a file given on the command line and reports a bad line with its number", () => {
    const file = join(scratch, "bad.jsonl");
    writeFileSync(file, '{"kind":"span_end","id":"a"}\r\n\n{"kind":"op","duration_ns":-1}\n');
    const result = run(file);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("line 3");
    expect(result.stderr).toContain("missing field `span_id`");
  });

  it("depends on @cg/schema alone", () => {
    const manifest = JSON.parse(readFileSync(join(here, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.dependencies).toEqual({ "@cg/schema": "workspace:^" });
    expect(manifest.devDependencies).toBeUndefined();
    expect(manifest.private).toBe(true);
    expect(manifest.type).toBe("module");
  });
});
