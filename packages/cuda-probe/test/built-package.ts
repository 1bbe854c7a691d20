// Tests of the built package (the real worker file, the gpu-check script) run against dist, and the
// sampler worker started from sources imports @cg/clock's dist. The global setup builds what is
// missing or older than the sources, once, before any test file runs.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "./child-process.js";

export const dist = join(packageRoot, "dist");
const builtFiles = ["index.js", "index.cjs", "sampler-worker.js", "sampler-worker.cjs"];

function newestSource(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function isStale(root: string, files: readonly string[]): boolean {
  const paths = files.map((file) => join(root, "dist", file));
  if (!paths.every((path) => existsSync(path))) return true;
  const builtAt = Math.min(...paths.map((path) => statSync(path).mtimeMs));
  return Math.max(newestSource(join(root, "src")), statSync(join(root, "tsup.config.ts")).mtimeMs) > builtAt;
}

export function ensureBuilt(): void {
  const dependencies = ["schema", "clock"].map((name) => join(packageRoot, "..", name));
  // Dependencies only need to exist (their own builds keep them fresh); this package must be current.
  const dependencyMissing = dependencies.some(
    (root) => !existsSync(join(root, "dist", "index.js")) || !existsSync(join(root, "dist", "index.cjs")),
  );
  if (dependencyMissing || isStale(packageRoot, builtFiles)) {
    try {
      execFileSync("pnpm", ["turbo", "run", "build", "--filter", "@cg/cuda-probe..."], {
        cwd: join(packageRoot, "..", ".."),
        stdio: "pipe",
      });
    } catch (error) {
      const output =
        String((error as { stdout?: Buffer }).stdout ?? "") +
        String((error as { stderr?: Buffer }).stderr ?? "");
      throw new Error(
        `building @cg/cuda-probe and its dependencies for the tests failed:\n${output.slice(-4000)}`,
        {
          cause: error,
        },
      );
    }
  }
}
