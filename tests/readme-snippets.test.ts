// The root README's commands and capture snippet run as written: the JavaScript snippet in plain
// Node 20, each `pnpm cg-trace …` line through the built CLI.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "./workspace-packages.js";

const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const cli = join(repoRoot, "packages/cli/dist/bin.js");
const scratch = mkdtempSync(join(tmpdir(), "cg-readme-"));

/** The fenced blocks of `language` in the README, in order. */
function blocks(language: string): string[] {
  return [...readme.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map(
    (match) => match[1]!,
  );
}

/** The words of a shell command line: double-quoted words keep their spaces, quotes removed. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

beforeAll(() => {
  if (!existsSync(cli))
    execFileSync("pnpm", ["turbo", "run", "build", "--filter", "@cg/cli..."], { cwd: repoRoot });
}, 600_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("root README", () => {
  it("has a capture snippet that runs as copied in plain Node 20 JavaScript", () => {
    const [snippet] = blocks("js");
    expect(snippet).toContain("TraceSession.open");
    expect(snippet).not.toMatch(/\busing\b/);
    // A folder inside a package that depends on @cg/writer, so the bare import resolves as it
    // would in a user's project that installed it.
    const project = mkdtempSync(join(repoRoot, "packages/trace/.readme-"));
    try {
      writeFileSync(join(project, "capture.mjs"), snippet!);
      execFileSync(process.execPath, ["capture.mjs"], { cwd: project, stdio: "pipe" });
      const validate = spawnSync(process.execPath, [cli, "validate", "traces/step-2.jsonl"], {
        cwd: project,
        encoding: "utf8",
      });
      expect(validate.status, validate.stderr).toBe(0);
      expect(validate.stdout).toContain("traces/step-2.jsonl: valid, trusted");
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it("keeps the using form for TypeScript", () => {
    expect(blocks("ts").some((block) => block.includes("using measured = session.beginMeasurement"))).toBe(
      true,
    );
  });

  it("runs every `pnpm cg-trace` command it shows", () => {
    const version = spawnSync("pnpm", ["--silent", "cg-trace", "--version"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    // The commands read ./cg-trace-out from `pnpm demo`; the MLP demo makes one here.
    mkdirSync(scratch, { recursive: true });
    expect(
      spawnSync(process.execPath, [cli, "demo", "--model", "mlp", "--no-gpu"], { cwd: scratch }).status,
    ).toBe(0);
    // The "Many traces" commands read folders of traces: copies of the demo trace, each with a run
    // id of its own, stand in for a job's ranks and for a nightly job's runs (enough of them for
    // `regress` to judge: 20 baseline and 3 candidate runs).
    const demo = readFileSync(join(scratch, "cg-trace-out", "application.jsonl"), "utf8");
    const runId = /"run_id":"([^"]+)"/.exec(demo)![1]!;
    for (const [folder, count] of [
      ["ranks", 2],
      ["nightly", 24],
    ] as const) {
      mkdirSync(join(scratch, folder), { recursive: true });
      for (let index = 0; index < count; index += 1) {
        const copy = demo.replaceAll(`"run_id":"${runId}"`, `"run_id":"${runId}-${index}"`);
        writeFileSync(join(scratch, folder, `run-${index}.jsonl`), copy);
      }
    }
    const commands = blocks("sh")
      .flatMap((block) => block.split("\n"))
      .filter((line) => line.startsWith("pnpm cg-trace "))
      .map((line) => shellWords(line.replace(/\s+#.*$/, "")).slice(2));
    expect(commands.length).toBeGreaterThanOrEqual(7);
    expect(commands.some((args) => args[0] === "sql")).toBe(true);
    for (const args of commands) {
      const result = spawnSync(process.execPath, [cli, ...args], { cwd: scratch, encoding: "utf8" });
      expect(result.status, `${args.join(" ")}: ${result.stderr}`).toBe(0);
    }
  });
});
