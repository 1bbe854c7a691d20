// Runs a short ES module script in a fresh Node process with tsx's loader, so a test can observe
// what only a whole process shows (what importing loads, what happens at exit).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
export const sourceEntry = pathToFileURL(join(packageRoot, "src", "index.ts")).href;

export interface ChildResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runModule(
  code: string,
  options: { env?: Record<string, string>; loader?: boolean } = {},
): ChildResult {
  const tsx = createRequire(import.meta.url).resolve("tsx/package.json");
  const loader = pathToFileURL(join(dirname(tsx), "dist", "loader.mjs")).href;
  const result = spawnSync(
    process.execPath,
    [...(options.loader === false ? [] : ["--import", loader]), "--input-type=module", "-e", code],
    { cwd: packageRoot, env: { ...process.env, ...options.env }, encoding: "utf8", timeout: 30_000 },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
