// The release, end to end, the way a maintainer and a consumer meet it: a copy of the workspace is
// published with the maintainer's command (`pnpm release`, i.e. `changeset publish`) to a
// Verdaccio registry on loopback, then every package is installed alone with npm into a fresh
// project and loaded from ESM and CommonJS; the CLI runs from its bin. Nothing leaves loopback:
// the registry has no uplinks, third-party packages are written into its storage from the
// workspace's pnpm store, every npm and pnpm child is pointed at the registry, and install
// scripts are not run.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalRegistry, startRegistry, stopRegistry, thirdPartyClosure } from "./local-registry.js";
import { removeScratch, scratchCopy } from "./release-plan.js";
import { entryPoints, publishedPackages, repoRoot, type WorkspacePackage } from "./workspace-packages.js";

const packages = publishedPackages();
let registry: LocalRegistry | undefined;
let workDir = "";
let scratch = "";
const footprints: string[] = [];

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): string {
  return execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function registryEnv(): NodeJS.ProcessEnv {
  if (!registry) throw new Error("the registry is not running");
  return {
    ...registry.env,
    // turbo: the build cache of the workspace under test, and nothing sent anywhere.
    TURBO_CACHE_DIR: join(repoRoot, ".turbo", "cache"),
    TURBO_TELEMETRY_DISABLED: "1",
    TURBO_NO_UPDATE_NOTIFIER: "1",
    DO_NOT_TRACK: "1",
  };
}

/** The @cg/* packages an install of `pkg` must bring: its runtime dependencies and required peers. */
function internalClosure(pkg: WorkspacePackage): string[] {
  const byName = new Map(packages.map((candidate) => [candidate.name, candidate]));
  const found = new Set<string>([pkg.name]);
  const queue = [pkg];
  while (queue.length > 0) {
    const current = queue.shift() as WorkspacePackage;
    const optionalPeers = current.manifest.peerDependenciesMeta ?? {};
    const names = [
      ...Object.keys(current.manifest.dependencies ?? {}),
      ...Object.keys(current.manifest.peerDependencies ?? {}).filter(
        (name) => !optionalPeers[name]?.optional,
      ),
    ];
    for (const name of names) {
      const dependency = byName.get(name);
      if (dependency && !found.has(name)) {
        found.add(name);
        queue.push(dependency);
      }
    }
  }
  return [...found].sort();
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "cg-registry-"));
  // Third-party packages go into the registry's storage before it starts, from this workspace's
  // installed copies (the scratch copy below installs the same lockfile from the same store).
  const workspaceDirs = readdirSync(join(repoRoot, "packages"))
    .map((entry) => join(repoRoot, "packages", entry))
    .filter((dir) => existsSync(join(dir, "package.json")));
  registry = await startRegistry(workDir, thirdPartyClosure(workspaceDirs));
  const env = registryEnv();

  // The workspace as a clean clone would have it: tracked files, no node_modules, no dist.
  scratch = scratchCopy();
  const git = ["-c", "user.name=release-test", "-c", "user.email=release-test@localhost"];
  run("git", ["init", "-q", "-b", "main"], scratch, env);
  run("git", ["add", "-A"], scratch, env);
  run("git", [...git, "commit", "-q", "-m", "release candidate"], scratch, env);
  run("pnpm", ["install", "--offline", "--frozen-lockfile"], scratch, env);

  // The maintainer's command: builds each package (prepack) and publishes what is not there yet.
  run("pnpm", ["release"], scratch, env);
}, 1_800_000);

afterAll(async () => {
  if (registry) await stopRegistry(registry);
  if (footprints.length > 0) console.info(`install footprints (npm, alone):\n${footprints.join("\n")}`);
  if (scratch) removeScratch(scratch);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe("every package publishes with pnpm release and installs alone from a loopback registry", () => {
  it("published every package at its workspace version", async () => {
    for (const pkg of packages) {
      const response = await fetch(`${registry?.url}/${pkg.name.replace("/", "%2f")}`);
      expect(response.status, pkg.name).toBe(200);
      const document = (await response.json()) as { versions: Record<string, { dependencies?: object }> };
      expect(Object.keys(document.versions), pkg.name).toContain(pkg.version);
      expect(JSON.stringify(document.versions[pkg.version]?.dependencies ?? {})).not.toContain("workspace:");
    }
  });

  for (const pkg of packages) {
    it(`${pkg.name}: npm installs it alone; it loads from ESM and CommonJS`, () => {
      const env = registryEnv();
      const project = join(workDir, "consumers", pkg.name.replace("/", "-"));
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true }));
      run("npm", ["install", "--ignore-scripts", `${pkg.name}@${pkg.version}`], project, env);

      // Only what it needs of ours, with its licence and changelog.
      expect(
        readdirSync(join(project, "node_modules", "@cg"))
          .map((name) => `@cg/${name}`)
          .sort(),
      ).toEqual(internalClosure(pkg));
      const installed = join(project, "node_modules", pkg.name);
      expect(readFileSync(join(installed, "LICENSE"), "utf8")).toBe(
        readFileSync(join(repoRoot, "LICENSE"), "utf8"),
      );
      expect(readFileSync(join(installed, "CHANGELOG.md"), "utf8")).toContain(`## ${pkg.version}`);

      // Every package of the install came from the loopback registry.
      const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
        packages: Record<string, { resolved?: string }>;
      };
      for (const [path, entry] of Object.entries(lock.packages)) {
        if (entry.resolved !== undefined)
          expect(entry.resolved, path).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      }

      for (const entry of entryPoints(pkg)) {
        const esm = run(
          "node",
          [
            "--input-type=module",
            "-e",
            `const m = await import(${JSON.stringify(entry)}); console.log(Object.keys(m).length);`,
          ],
          project,
          env,
        );
        expect(Number(esm.trim()), `${entry} from ESM`).toBeGreaterThan(0);
        const cjs = run(
          "node",
          ["-e", `console.log(Object.keys(require(${JSON.stringify(entry)})).length);`],
          project,
          env,
        );
        expect(Number(cjs.trim()), `${entry} from CommonJS`).toBeGreaterThan(0);
      }

      const bytes = Number(run("du", ["-sb", "node_modules"], project, env).split("\t")[0]);
      const size =
        bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
      footprints.push(`${pkg.name}\t${size}`);

      if (pkg.manifest.bin?.["cg-trace"]) {
        expect(run("npx", ["--no", "--", "cg-trace", "--version"], project, env).trim()).toBe(pkg.version);
        const fixture = join(fixturesDir, "valid", "golden-train.jsonl");
        const summary = run("npx", ["--no", "--", "cg-trace", "summary", fixture], project, env);
        expect(summary).toContain("candle-graph/trace/6");
        expect(summary).toContain("run-4242-1754330400123456789");
      }
    }, 600_000);
  }
});
