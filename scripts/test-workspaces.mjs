// The workspaces whose tests `pnpm test` runs (every workspace package with a `test` script), and
// where each one's vitest JSON report lands. Shared by run-tests.mjs and ci-summary.mjs, so the
// summary expects a report from exactly the packages that were asked to write one.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Each package writes its report here, relative to its own folder (turbo caches it as output). */
export const REPORT_FILE = ".vitest-report.json";

/** The folders named by pnpm-workspace.yaml's `packages` globs (`dir` or `dir/*`). */
function workspaceFolders() {
  const yaml = readFileSync(join(repoRoot, "pnpm-workspace.yaml"), "utf8");
  const block = yaml.match(/^packages:\n((?:[ \t]+-.*\n?)+)/m)?.[1] ?? "";
  return [...block.matchAll(/-\s*["']?([^"'\n]+?)["']?\s*$/gm)].flatMap(([, pattern]) => {
    if (!pattern.endsWith("/*")) return [join(repoRoot, pattern)];
    const parent = join(repoRoot, pattern.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name));
  });
}

/** `{ name, folder, report }` of every workspace package that has a `test` script. */
export function testWorkspaces() {
  return workspaceFolders().flatMap((folder) => {
    const manifestPath = join(folder, "package.json");
    if (!existsSync(manifestPath)) return [];
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    if (typeof manifest.scripts?.test !== "string") return [];
    return [{ name: manifest.name, folder: relative(repoRoot, folder), report: join(folder, REPORT_FILE) }];
  });
}
