import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { GROW_ONCE_FLAG, HEAP_SETTINGS, heapFlags } from "./heap-settings.js";

const here = dirname(fileURLToPath(import.meta.url));
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href;

interface StreamLikeRun {
  /** The young generation's size before and after. */
  first: number;
  last: number;
  stderr: string;
}

/** A stream-like run in a fresh node (heap-settings.test-child.ts) with `cg-trace <args[0]>`'s settings or `--flags`. */
function streamLikeRun(args: string[]): StreamLikeRun {
  const child = spawnSync(
    process.execPath,
    ["--max-semi-space-size=64", "--import", tsxLoader, join(here, "heap-settings.test-child.ts"), ...args],
    { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } },
  );
  expect(child.status, child.stderr).toBe(0);
  return { ...(JSON.parse(child.stdout.trim()) as { first: number; last: number }), stderr: child.stderr };
}

const withFlags = (flags: string[]) => streamLikeRun(["--flags", JSON.stringify(flags)]);

describe("heap settings", () => {
  it("V8 knows every flag, and set at run time they keep the young generation at its first size", () => {
    // An unknown flag only prints a line on stderr; its setting would silently not apply.
    const tuned = withFlags(HEAP_SETTINGS.map(({ flag }) => flag));
    expect(tuned.stderr).toBe("");
    expect(withFlags(["--heap-growing-percnt=50"]).stderr).toMatch(/unrecognized flag/);
    expect(tuned.last).toBe(tuned.first);
    const byDefault = withFlags([]);
    expect(byDefault.last).toBeGreaterThanOrEqual(4 * tuned.last);
  });

  it("grows the young generation of summary, validate and query once, 4x, and never again", () => {
    for (const command of ["summary", "validate", "query"]) {
      const { first, last } = streamLikeRun([command]);
      // Without the stop after the first growth it would go on to 16x or more.
      expect(last, command).toBe(4 * first);
    }
    const view = streamLikeRun(["view"]);
    expect(view.last).toBe(view.first);
  });

  it("gives the growing commands their growth factor unless the user chose a young generation setting", () => {
    const [keep, growing] = HEAP_SETTINGS.map(({ flag }) => flag);
    expect(heapFlags([], undefined, "summary")).toEqual([GROW_ONCE_FLAG, growing]);
    expect(heapFlags([], undefined, "view")).toEqual([keep, growing]);
    expect(heapFlags([], undefined, "--help")).toEqual([keep, growing]);
    expect(heapFlags(["--max-semi-space-size=8"], undefined, "validate")).toEqual([growing]);
    expect(heapFlags([], "--heap-growing-percent=20", "query")).toEqual([GROW_ONCE_FLAG]);
  });

  it("leaves a setting chosen on the command line or in NODE_OPTIONS alone", () => {
    const all = HEAP_SETTINGS.map(({ flag }) => flag);
    expect(heapFlags([], undefined)).toEqual(all);
    expect(heapFlags(["--enable-source-maps"], "--max-old-space-size=4096")).toEqual(all);
    expect(heapFlags(["--max-semi-space-size=8"], undefined)).toEqual([all[1]]);
    expect(heapFlags([], "--inspect --max_semi_space_size=32")).toEqual([all[1]]);
    expect(heapFlags([], "--semi-space-growth-factor=4")).toEqual([all[1]]);
    expect(heapFlags(["--min-semi-space-size=2"], "")).toEqual([all[1]]);
    expect(heapFlags([], "--heap-growing-percent=20")).toEqual([all[0]]);
    expect(heapFlags(["--heap_growing_percent=20", "--max-semi-space-size=1"], undefined)).toEqual([]);
  });
});
