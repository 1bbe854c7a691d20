// What `changeset version` would release, worked out on a scratch copy of the repository, and the
// versioning policy checked on the result: installs never split. From 1.0.0 every internal range
// is a caret range (`workspace:^` is published as `^<version>`), so a minor or patch release of a
// package is satisfied by every published dependent; a major release must be a major release of
// every package that depends on it too, or an app holding the old dependent next to the new
// dependency ends up with two copies (two `CgError` classes, two sets of types).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { publishedPackages, repoRoot } from "./workspace-packages.js";

export interface PlannedPackage {
  name: string;
  before: string;
  after: string;
  /** @cg/* runtime dependencies (dependencies, peerDependencies) with their source ranges. */
  internal: Record<string, string>;
}

/** A copy of the tracked (and new, unignored) files of the repository, without node_modules. */
export function scratchCopy(): string {
  const scratch = mkdtempSync(join(tmpdir(), "cg-release-plan-"));
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], {
    cwd: repoRoot,
    encoding: "utf8",
  })
    .split("\0")
    .filter((file) => file !== "" && !file.includes("node_modules/"));
  for (const file of files) {
    mkdirSync(dirname(join(scratch, file)), { recursive: true });
    try {
      cpSync(join(repoRoot, file), join(scratch, file));
    } catch (error) {
      // A file deleted in the working tree but not yet staged is not part of the copy.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return scratch;
}

export function addChangeset(scratch: string, name: string, bumps: Record<string, string>, text: string) {
  const front = Object.entries(bumps)
    .map(([pkg, bump]) => `"${pkg}": ${bump}`)
    .join("\n");
  writeFileSync(join(scratch, ".changeset", `${name}.md`), `---\n${front}\n---\n\n${text}\n`);
}

function readPlanned(scratch: string): Map<string, Omit<PlannedPackage, "before">> {
  const planned = new Map<string, Omit<PlannedPackage, "before">>();
  for (const pkg of publishedPackages(scratch)) {
    const internal: Record<string, string> = {};
    for (const field of [pkg.manifest.dependencies, pkg.manifest.peerDependencies]) {
      for (const [name, range] of Object.entries(field ?? {}))
        if (name.startsWith("@cg/")) internal[name] = range;
    }
    planned.set(pkg.name, { name: pkg.name, after: pkg.version, internal });
  }
  return planned;
}

/** Runs `changeset version` in the scratch copy; returns every published package before and after. */
export function versionScratch(scratch: string): PlannedPackage[] {
  const before = readPlanned(scratch);
  execFileSync(join(repoRoot, "node_modules", ".bin", "changeset"), ["version"], {
    cwd: scratch,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return [...readPlanned(scratch).values()].map((pkg) => ({
    ...pkg,
    before: before.get(pkg.name)?.after ?? "0.0.0",
  }));
}

export function removeScratch(scratch: string) {
  rmSync(scratch, { recursive: true, force: true });
}

const major = (version: string) => Number(version.split(".")[0]);

/** The range a package is published with for a dependency at `version` (`workspace:^` → `^x`). */
export function publishedRange(sourceRange: string, version: string): string {
  const bare = sourceRange.replace(/^workspace:/, "");
  return bare === "^" || bare === "*" ? `^${version}` : bare === "~" ? `~${version}` : bare;
}

/** Does `version` satisfy the caret or tilde range `range` (plain x.y.z versions only)? */
export function satisfies(version: string, range: string): boolean {
  const match = /^([\^~])(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (!match) return false;
  const [have, want] = [version.split(".").map(Number), match.slice(2).map(Number)];
  const order = (have[0]! - want[0]!) * 1e12 + (have[1]! - want[1]!) * 1e6 + (have[2]! - want[2]!);
  if (order < 0 || have[0] !== want[0]) return false;
  return match[1] === "^" ? want[0]! > 0 || have[1] === want[1] : have[1] === want[1];
}

/**
 * Every way the plan can split an install: a dependent whose latest published range (its new one
 * if it is released, else the one it was released with) leaves out the dependency's new version.
 */
export function splitProblems(plan: PlannedPackage[]): string[] {
  const byName = new Map(plan.map((pkg) => [pkg.name, pkg]));
  const problems: string[] = [];
  for (const pkg of plan) {
    const released = pkg.after !== pkg.before;
    for (const [name, sourceRange] of Object.entries(pkg.internal)) {
      const dependency = byName.get(name);
      if (!dependency) continue;
      const range = publishedRange(sourceRange, released ? dependency.after : dependency.before);
      if (!satisfies(dependency.after, range)) {
        problems.push(
          `${pkg.name}@${pkg.after} would keep ${name}@${range}, which leaves out ${dependency.after}`,
        );
      } else if (
        major(dependency.after) > major(dependency.before) &&
        major(pkg.after) === major(pkg.before)
      ) {
        problems.push(
          `${name} goes to a new major (${dependency.after}); ${pkg.name} must too (add "${pkg.name}": major)`,
        );
      }
    }
  }
  return problems;
}

export function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}
