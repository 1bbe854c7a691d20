import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

// Runs the BUILT package in a fresh Node process, like a user's program would load it.
const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = resolve(packageRoot, "../..");

function newestSource(directory: string): number {
  return Math.max(
    ...["index.ts", "cuda.ts"].map((name) => statSync(join(directory, name)).mtimeMs),
    statSync(join(packageRoot, "package.json")).mtimeMs,
  );
}

beforeAll(() => {
  const built = join(packageRoot, "dist/index.js");
  if (!existsSync(built) || statSync(built).mtimeMs < newestSource(join(packageRoot, "src"))) {
    execFileSync("pnpm", ["turbo", "run", "build", "--filter", "@cg/trace..."], {
      cwd: repoRoot,
      stdio: "pipe",
    });
  }
}, 300_000);

/** Loads `specifier` in a child process and reports what native code and modules got loaded. */
function loadIn(kind: "import" | "require", specifier: string, afterLoad = "") {
  const inspect = `
const report = process.report.getReport();
const sharedObjects = report.sharedObjects.filter((path) => /\\.node$|nvidia-ml|koffi/.test(path));
const koffiInCache = Object.keys(require.cache).some((path) => path.includes("koffi"));
console.log(JSON.stringify({ exports: Object.keys(loaded).sort(), sharedObjects, koffiInCache }));`;
  const script =
    kind === "import"
      ? `import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const loaded = await import(${JSON.stringify(specifier)});${afterLoad}${inspect}`
      : `const loaded = require(${JSON.stringify(specifier)});${afterLoad}${inspect}`;
  const args = kind === "import" ? ["--input-type=module", "-e", script] : ["-e", script];
  const output = execFileSync(process.execPath, args, { cwd: packageRoot, encoding: "utf8" });
  return JSON.parse(output) as { exports: string[]; sharedObjects: string[]; koffiInCache: boolean };
}

describe("@cg/trace entry points", () => {
  for (const kind of ["import", "require"] as const) {
    it(`${kind} of @cg/trace loads no native library`, () => {
      const result = loadIn(kind, "@cg/trace");
      expect(result.sharedObjects).toEqual([]);
      expect(result.koffiInCache).toBe(false);
      // One import brings schema, clock, memory, writer and parser.
      for (const name of [
        "SCHEMA",
        "MonotonicClock",
        "storageBytes",
        "analyzeMemory",
        "TraceSession",
        "ProfileRun",
        "CaptureGate",
        "parseTrace",
        "readTraceEvents",
        "analyzeHealth",
        "compareTraces",
        "decodeTraceLine",
        "encodeTraceEvent",
      ]) {
        expect(result.exports, name).toContain(name);
      }
      expect(result.exports).not.toContain("openProbe");
    });
  }

  it("@cg/trace/cuda exposes the probe, which loads koffi only when opened", () => {
    const imported = loadIn("import", "@cg/trace/cuda");
    expect(imported.exports).toContain("openProbe");
    expect(imported.exports).toContain("DeviceMemorySampler");
    expect(imported.koffiInCache).toBe(false);
    // Opening the probe loads koffi (whether or not a GPU is present): the check above can see it.
    for (const kind of ["import", "require"] as const) {
      const opened = loadIn(kind, "@cg/trace/cuda", "\nloaded.openProbe();");
      expect(opened.koffiInCache, kind).toBe(true);
      expect(
        opened.sharedObjects.some((path) => path.includes("koffi")),
        kind,
      ).toBe(true);
    }
  });
});
