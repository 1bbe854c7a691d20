// `prepack` of every published package: packing or publishing builds the package and the
// packages it depends on first (through turbo's cache), then refuses to go on when a file the
// manifest points at is missing, so no tarball is ever published without its build.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const packageDir = process.cwd();
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));

// Inside a turbo task (check:pkg packs with attw) the build already ran as a dependency; under
// `pnpm release` (scripts/release.mjs) it ran for every package before publishing began.
// biome-ignore lint/suspicious/noUndeclaredEnvVars: set by turbo itself, says only where we run
const alreadyBuilt = process.env.TURBO_HASH !== undefined || process.env.CG_RELEASE_BUILT === "1";
if (!alreadyBuilt) {
  execFileSync(
    "pnpm",
    ["exec", "turbo", "run", "build", `--filter=${manifest.name}...`, "--output-logs=errors-only"],
    // stdout stays clean for `npm pack --json`.
    { cwd: repoRoot, stdio: ["ignore", 2, 2] },
  );
}

/** Every file path named by main, module, types, bin and exports. */
function pointedFiles(value) {
  if (typeof value === "string") return value.startsWith("./") || !value.includes(":") ? [value] : [];
  if (value && typeof value === "object") return Object.values(value).flatMap(pointedFiles);
  return [];
}
const pointed = [manifest.main, manifest.module, manifest.types, manifest.bin, manifest.exports].flatMap(
  pointedFiles,
);
const missing = pointed.filter((file) => !existsSync(join(packageDir, file)));
if (missing.length > 0) {
  console.error(`${manifest.name}: refusing to pack, missing ${missing.join(", ")} (run pnpm build)`);
  process.exit(1);
}
