// A real kill -9 of a process in the middle of an export, before the first step of each kind and
// after a delay: the dataset reads as the old one or the new one, and the next export heals it.
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type ExportStep, exportParquet } from "../src/index.js";
import { namedFiles, parquetFilesBelow, snapshot, treeOf } from "./dataset-snapshot.js";
import { writeWriterTrace } from "./trace-fixtures.js";

const here = dirname(fileURLToPath(import.meta.url));
// tsx as a loader in the same process (its CLI would run the script in a second one).
const tsx = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/index.mjs"),
).href;
const workDir = mkdtempSync(join(tmpdir(), "cg-sql-kill-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const oldTraces = ["run-a", "run-b"].map((run) => writeWriterTrace(join(workDir, `${run}.jsonl`), run));
const newTraces = ["run-a", "run-c"].map((run) =>
  writeWriterTrace(join(workDir, `${run}-new.jsonl`), run, `new/${run}`),
);
const base = join(workDir, "base");
let oldSnapshot = "";
let newSnapshot = "";
const steps: ExportStep[] = [];

beforeAll(async () => {
  await exportParquet(oldTraces, base);
  oldSnapshot = await snapshot(base);
  const clean = join(workDir, "clean");
  cpSync(base, clean, { recursive: true });
  await exportParquet(newTraces, clean, { beforeStep: (step) => void steps.push(step) });
  newSnapshot = await snapshot(clean);
}, 120_000);

/** Runs the child; resolves with its signal (SIGKILL when it killed itself or was killed). */
function runChild(stopAt: number, dir: string, killAfterMs?: number): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", tsx, join(here, "export-child.ts"), String(stopAt), "run_id", dir, ...newTraces],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer =
      killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (signal === null && code !== 0) reject(new Error(`child failed (${code}): ${stderr}`));
      else resolve(signal);
    });
  });
}

async function expectOldOrNewThenHealed(dir: string, label: string): Promise<"old" | "new"> {
  const read = await snapshot(dir).catch((error: unknown) => `unreadable: ${String(error)}`);
  expect([oldSnapshot, newSnapshot], label).toContain(read);
  await exportParquet(newTraces, dir);
  expect(await snapshot(dir), `${label}: healed`).toBe(newSnapshot);
  expect(parquetFilesBelow(dir), `${label}: leftovers`).toEqual(namedFiles(dir));
  expect(treeOf(dir).some((path) => path.startsWith("_cg_work-"))).toBe(false);
  return read === oldSnapshot ? "old" : "new";
}

test("kill -9 before the first step of each kind", async () => {
  const firsts = new Map<string, number>();
  for (const [index, step] of steps.entries()) if (!firsts.has(step.kind)) firsts.set(step.kind, index);
  // And the last step before the commit, and the first removal after it.
  const commit = steps.findIndex((step) => step.kind === "commit");
  const points = [...new Set([...firsts.values(), commit - 1, commit + 1])].sort((a, b) => a - b);
  for (const stopAt of points) {
    const dir = join(workDir, `kill-${stopAt}`);
    cpSync(base, dir, { recursive: true });
    expect(await runChild(stopAt, dir), `step ${stopAt}`).toBe("SIGKILL");
    const seen = await expectOldOrNewThenHealed(
      dir,
      `killed before step ${stopAt} ${JSON.stringify(steps[stopAt])}`,
    );
    expect(seen, `step ${stopAt}`).toBe(stopAt <= commit ? "old" : "new");
  }
}, 600_000);

test("kill -9 from outside after a delay", async () => {
  for (const delay of [400, 900, 1600]) {
    const dir = join(workDir, `delay-${delay}`);
    cpSync(base, dir, { recursive: true });
    await runChild(-1, dir, delay);
    await expectOldOrNewThenHealed(dir, `killed after ${delay} ms`);
  }
}, 600_000);
