// The published packages of the workspace, read from their package.json files.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export interface WorkspacePackage {
  name: string;
  version: string;
  dir: string;
  manifest: {
    name: string;
    version: string;
    private?: boolean;
    bin?: Record<string, string>;
    exports?: Record<string, unknown>;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
}

/** The published (not private) packages under `packages/` of the repository at `root`. */
export function publishedPackages(root = repoRoot): WorkspacePackage[] {
  const packagesDir = join(root, "packages");
  return readdirSync(packagesDir)
    .map((entry) => join(packagesDir, entry))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => {
      const manifest = JSON.parse(
        readFileSync(join(dir, "package.json"), "utf8"),
      ) as WorkspacePackage["manifest"];
      return { name: manifest.name, version: manifest.version, dir, manifest };
    })
    .filter((pkg) => pkg.manifest.private !== true)
    .sort((left, right) => left.name.localeCompare(right.name));
}

/** Entry points (subpath exports other than JSON files) users may import, e.g. `@cg/trace/cuda`. */
export function entryPoints(pkg: WorkspacePackage): string[] {
  return Object.keys(pkg.manifest.exports ?? { ".": {} })
    .filter((key) => !key.endsWith(".json"))
    .map((key) => (key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`));
}
