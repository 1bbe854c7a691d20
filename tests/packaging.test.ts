// Pick-and-choose is a promise: every published package must work when installed from its tarball
// into a project outside the workspace, imported alone, from ESM and from CommonJS.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishedPackages, repoRoot } from "./workspace-packages.js";

const packages = publishedPackages();
let projectDir = "";

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Subpath exports (other than package.json) that users may import, e.g. `@cg/trace/cuda`. */
function entryPoints(pkg: (typeof packages)[number]): string[] {
  const exportsField = pkg.manifest.exports ?? { ".": {} };
  return Object.keys(exportsField)
    .filter((key) => !key.endsWith(".json"))
    .map((key) => (key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`));
}

beforeAll(() => {
  const missing = packages.filter((pkg) => !existsSync(join(pkg.dir, "dist")));
  if (missing.length > 0) run("pnpm", ["turbo", "run", "build"], repoRoot);

  const tarballDir = mkdtempSync(join(tmpdir(), "cg-tarballs-"));
  for (const pkg of packages) run("pnpm", ["pack", "--pack-destination", tarballDir], pkg.dir);
  const tarballs = readdirSync(tarballDir).map((file) => join(tarballDir, file));

  projectDir = mkdtempSync(join(tmpdir(), "cg-consumer-"));
  writeFileSync(join(projectDir, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  // A peer that every package marks optional (onnxruntime-node) is loaded lazily: the packages must
  // load without it, so it is not installed. One that some package requires is installed once, at
  // the highest lower bound any package's range names (`>=4.20 <5` and `^4.22.0` → 4.22.0).
  const required = new Set<string>();
  for (const pkg of packages) {
    for (const name of Object.keys(pkg.manifest.peerDependencies ?? {})) {
      if (pkg.manifest.peerDependenciesMeta?.[name]?.optional !== true) required.add(name);
    }
  }
  const lowest = new Map<string, string>();
  const order = (version: string): number =>
    version.split(".").reduce((key, part, index) => key + Number(part) * 10_000 ** (2 - index), 0);
  for (const pkg of packages) {
    for (const [name, range] of Object.entries(pkg.manifest.peerDependencies ?? {})) {
      if (name.startsWith("@cg/") || !required.has(name)) continue;
      const version = /(\d+(?:\.\d+){0,2})/.exec(range)?.[1] ?? "0";
      const known = lowest.get(name);
      if (known === undefined || order(version) > order(known)) lowest.set(name, version);
    }
  }
  const peers = [...lowest].map(([name, version]) => `${name}@${version}`);
  run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...tarballs, ...peers],
    projectDir,
  );
});

afterAll(() => {
  if (projectDir) rmSync(projectDir, { recursive: true, force: true });
});

describe("published packages install and load outside the workspace", () => {
  it("has something to check", () => {
    expect(packages.map((pkg) => pkg.name)).toEqual(
      expect.arrayContaining(["@cg/schema", "@cg/writer", "@cg/parser"]),
    );
  });

  for (const pkg of packages) {
    for (const entry of entryPoints(pkg)) {
      it(`${entry} loads alone from ESM`, () => {
        const output = run(
          "node",
          [
            "--input-type=module",
            "-e",
            `const m = await import(${JSON.stringify(entry)}); console.log(Object.keys(m).length);`,
          ],
          projectDir,
        );
        expect(Number(output.trim())).toBeGreaterThan(0);
      });

      it(`${entry} loads alone from CommonJS`, () => {
        const output = run(
          "node",
          ["-e", `const m = require(${JSON.stringify(entry)}); console.log(Object.keys(m).length);`],
          projectDir,
        );
        expect(Number(output.trim())).toBeGreaterThan(0);
      });
    }
  }

  it("installs no workspace-only dependency ranges", () => {
    for (const pkg of packages) {
      const installed = JSON.parse(
        run(
          "node",
          ["-e", `console.log(JSON.stringify(require(${JSON.stringify(`${pkg.name}/package.json`)})))`],
          projectDir,
        ),
      ) as { dependencies?: Record<string, string> };
      for (const range of Object.values(installed.dependencies ?? {}))
        expect(range).not.toMatch(/^workspace:/);
    }
  });
});
