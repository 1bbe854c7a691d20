import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// Runs the built `cg-trace` binary exactly as a user would; builds it first when missing or stale.
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const repoRoot = resolve(packageRoot, "../..");
export const bin = join(packageRoot, "dist/bin.js");

function newestMtime(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.name.endsWith(".test.ts")) continue;
    const time = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

const isFresh = (): boolean =>
  existsSync(bin) && statSync(bin).mtimeMs >= newestMtime(join(packageRoot, "src"));

/** True when the lock's pid is no longer running, or the lock has had no pid for 10 s. */
function lockOwnerIsGone(lock: string): boolean {
  try {
    const pid = Number(readFileSync(join(lock, "pid"), "utf8"));
    process.kill(pid, 0);
    return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EPERM") return false;
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return true;
    // No pid yet: the owner is between mkdir and writing it, unless that was long ago.
    try {
      return Date.now() - statSync(lock).mtimeMs > 10_000;
    } catch {
      return false;
    }
  }
}

/** Builds @cg/cli and its dependencies when dist is missing or older than src; one test file at a time. */
export function ensureBuilt(): void {
  if (isFresh()) return;
  // Test files run in parallel workers: a lock folder lets one build while the others wait. It is
  // named after this checkout (several checkouts may test at once) and holds the builder's pid, so
  // a lock left by a killed run is taken over instead of blocking every later run.
  const lock = join(
    tmpdir(),
    `cg-cli-build-${createHash("sha256").update(packageRoot).digest("hex").slice(0, 16)}.lock`,
  );
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch {
      if (lockOwnerIsGone(lock)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() - started > 300_000) throw new Error(`waited 300 s for the build lock ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (!isFresh()) {
      execFileSync("pnpm", ["turbo", "run", "build", "--filter", "@cg/cli..."], {
        cwd: repoRoot,
        stdio: "pipe",
      });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface BinaryRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/bin.js …` with colours off. */
export function runBinary(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string; timeout?: number },
): BinaryRun {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "", FORCE_COLOR: "", ...options.env },
    timeout: options.timeout ?? 120_000,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}
