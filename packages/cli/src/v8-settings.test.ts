import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { GROW_ONCE_FLAG, LESS_INLINING_FLAG, V8_SETTINGS, v8Flags } from "./v8-settings.js";

const here = dirname(fileURLToPath(import.meta.url));
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href;

interface StreamLikeRun {
  /** The young generation's size before and after. */
  first: number;
  last: number;
  stderr: string;
}

/** A stream-like run in a fresh node (v8-settings.test-child.ts) with `cg-trace <args[0]>`'s settings or `--flags`. */
function streamLikeRun(args: string[]): StreamLikeRun {
  const child = spawnSync(
    process.execPath,
    ["--max-semi-space-size=64", "--import", tsxLoader, join(here, "v8-settings.test-child.ts"), ...args],
    { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } },
  );
  expect(child.status, child.stderr).toBe(0);
  return { ...(JSON.parse(child.stdout.trim()) as { first: number; last: number }), stderr: child.stderr };
}

const withFlags = (flags: string[]) => streamLikeRun(["--flags", JSON.stringify(flags)]);

describe("V8 settings", () => {
  // V8 may also halve the young generation where it measures a low allocation rate (a busy machine
  // that stalls the run): the settings are about growth, so the tests bound the size from above.
  it("V8 knows every flag, and set at run time they keep the young generation from growing", () => {
    // An unknown flag only prints a line on stderr; its setting would silently not apply.
    const tuned = withFlags(V8_SETTINGS.map(({ flag }) => flag));
    expect(tuned.stderr).toBe("");
    expect(withFlags(["--heap-growing-percnt=50"]).stderr).toMatch(/unrecognized flag/);
    expect(tuned.last).toBeLessThanOrEqual(tuned.first);
    const byDefault = withFlags([]);
    expect(byDefault.last).toBeGreaterThanOrEqual(4 * tuned.first);
  });

  it("grows the young generation of summary, validate and query once, 4x, and never again", () => {
    for (const command of ["summary", "validate", "query"]) {
      const { first, last } = streamLikeRun([command]);
      // It grew (to 4x, halved at most once since), and without the stop after the first growth it
      // would have gone on to 16x or more.
      expect(last, command).toBeGreaterThan(first);
      expect(last, command).toBeLessThanOrEqual(4 * first);
    }
    const view = streamLikeRun(["view"]);
    expect(view.last).toBeLessThanOrEqual(view.first);
  });

  it("gives the growing commands their growth factor unless the user chose a young generation setting", () => {
    const [keep, growing, inlining] = V8_SETTINGS.map(({ flag }) => flag);
    expect(v8Flags([], undefined, "summary")).toEqual([GROW_ONCE_FLAG, growing, inlining]);
    expect(v8Flags([], undefined, "view")).toEqual([keep, growing, inlining]);
    expect(v8Flags([], undefined, "--help")).toEqual([keep, growing, inlining]);
    expect(v8Flags(["--max-semi-space-size=8"], undefined, "validate")).toEqual([growing, inlining]);
    expect(v8Flags([], "--heap-growing-percent=20", "query")).toEqual([GROW_ONCE_FLAG, inlining]);
  });

  it("inlines less for every command but demo, whose model runs with V8's defaults", () => {
    for (const command of ["summary", "validate", "query", "compare", "convert", "view", "sql", undefined]) {
      expect(v8Flags([], undefined, command), command).toContain(LESS_INLINING_FLAG);
    }
    expect(v8Flags([], undefined, "demo")).not.toContain(LESS_INLINING_FLAG);
    expect(v8Flags([], undefined, "demo")).toHaveLength(V8_SETTINGS.length - 1);
  });

  it("leaves a setting chosen on the command line or in NODE_OPTIONS alone", () => {
    const all = V8_SETTINGS.map(({ flag }) => flag);
    expect(v8Flags([], undefined)).toEqual(all);
    expect(v8Flags(["--enable-source-maps"], "--max-old-space-size=4096")).toEqual(all);
    expect(v8Flags(["--max-semi-space-size=8"], undefined)).toEqual([all[1], all[2]]);
    expect(v8Flags([], "--inspect --max_semi_space_size=32")).toEqual([all[1], all[2]]);
    expect(v8Flags([], "--semi-space-growth-factor=4")).toEqual([all[1], all[2]]);
    expect(v8Flags(["--min-semi-space-size=2"], "")).toEqual([all[1], all[2]]);
    expect(v8Flags([], "--heap-growing-percent=20")).toEqual([all[0], all[2]]);
    expect(v8Flags(["--max_inlined_bytecode_size_cumulative=920"], undefined)).toEqual([all[0], all[1]]);
    expect(
      v8Flags(
        ["--heap_growing_percent=20", "--max-semi-space-size=1"],
        "--max-inlined-bytecode-size-cumulative=100",
      ),
    ).toEqual([]);
  });
});
