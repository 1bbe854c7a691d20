// Pick-and-choose is a promise: every published package must work when installed from its tarball
// into a project outside the workspace, imported alone, from ESM and from CommonJS.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryPoints, publishedPackages, repoRoot } from "./workspace-packages.js";

const packages = publishedPackages();
let projectDir = "";
let tarballDir = "";
/** Package name -> the tarball `pnpm pack` made of it (the prepack script builds it first). */
const tarballOf = new Map<string, string>();

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

beforeAll(() => {
  tarballDir = mkdtempSync(join(tmpdir(), "cg-tarballs-"));
  for (const pkg of packages) {
    const destination = mkdtempSync(join(tarballDir, "pack-"));
    run("pnpm", ["pack", "--pack-destination", destination], pkg.dir);
    const [file] = readdirSync(destination);
    if (file === undefined) throw new Error(`${pkg.name}: pnpm pack wrote no tarball`);
    tarballOf.set(pkg.name, join(destination, file));
  }
  const tarballs = [...tarballOf.values()];

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
  for (const dir of [projectDir, tarballDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

function tarballFiles(tarball: string): string[] {
  return run("tar", ["-tzf", tarball], repoRoot)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/^package\//, ""));
}

function tarballText(tarball: string, file: string): string {
  return run("tar", ["-xzOf", tarball, `package/${file}`], repoRoot);
}

/** Every file path named by main, module, types, bin and exports, without the leading `./`. */
function pointedFiles(value: unknown): string[] {
  if (typeof value === "string") return [value.replace(/^\.\//, "")];
  if (value && typeof value === "object") return Object.values(value).flatMap(pointedFiles);
  return [];
}

describe("published tarballs are complete and carry what a consumer needs", () => {
  const rootLicense = readFileSync(join(repoRoot, "LICENSE"), "utf8");
  const repositoryUrl = "git+https://github.com/candle-graph/cg-trace.git";

  for (const pkg of packages) {
    it(`${pkg.name}: licence, readme, changelog and every file its manifest points at`, () => {
      const tarball = tarballOf.get(pkg.name) as string;
      const files = tarballFiles(tarball);
      expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "CHANGELOG.md", "package.json"]));
      expect(tarballText(tarball, "LICENSE")).toBe(rootLicense);
      expect(rootLicense).toContain("the candle-graph for TypeScript authors");
      // The newest changelog entry is the version being published.
      expect(tarballText(tarball, "CHANGELOG.md")).toMatch(
        new RegExp(`^## ${pkg.version.replaceAll(".", "\\.")}$`, "m"),
      );
      const published = JSON.parse(tarballText(tarball, "package.json"));
      const pointed = [published.main, published.module, published.types, published.bin, published.exports];
      for (const file of pointed.flatMap(pointedFiles))
        expect(files, `${pkg.name} -> ${file}`).toContain(file);
      expect(files.filter((file) => file.endsWith("trace6.schema.json")).length).toBeLessThanOrEqual(1);
      for (const map of files.filter((file) => file.endsWith(".map")))
        expect(JSON.parse(tarballText(tarball, map)).sourcesContent, map).toBeUndefined();
    });

    it(`${pkg.name}: published manifest has its metadata and nothing private`, () => {
      const published = JSON.parse(tarballText(tarballOf.get(pkg.name) as string, "package.json"));
      expect(published.license).toBe("MIT");
      expect(published.repository).toEqual({
        type: "git",
        url: repositoryUrl,
        directory: relative(repoRoot, pkg.dir),
      });
      expect(published.homepage).toBe(
        `https://github.com/candle-graph/cg-trace/tree/main/${relative(repoRoot, pkg.dir)}#readme`,
      );
      expect(published.bugs).toEqual({ url: "https://github.com/candle-graph/cg-trace/issues" });
      expect(published.devDependencies).toBeUndefined();
      expect(published.scripts).toBeUndefined();
      for (const range of Object.values({ ...published.dependencies, ...published.peerDependencies }))
        expect(range).not.toMatch(/^workspace:/);
      expect(JSON.stringify(published)).not.toMatch(/tooling-|\/work\/|\/tmp\//);
    });
  }
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
