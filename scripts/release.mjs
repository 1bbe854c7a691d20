// `pnpm release [changeset publish options]`: the maintainer's publish command. It builds every
// package once through turbo, then runs `changeset publish`, which packs and publishes packages
// concurrently; their prepack scripts (build-before-pack.mjs) then only check the build, so no two
// builds race over a shared dependency's dist.
import { execFileSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const run = (command, args, env = process.env) =>
  execFileSync(command, args, { cwd: repoRoot, stdio: "inherit", env });

try {
  run("pnpm", ["exec", "turbo", "run", "build", "--output-logs=errors-only"]);
  run("pnpm", ["exec", "changeset", "publish", ...process.argv.slice(2)], {
    ...process.env,
    CG_RELEASE_BUILT: "1",
  });
} catch (error) {
  process.exit(typeof error.status === "number" ? error.status : 1);
}
