// Starts a test child script in one node process (tsx as a loader: the `tsx` command would run the
// script in a grandchild that a signal sent to the child does not reach) and collects its output.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = resolve(here, "..");
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href;

/** The child runs the writer's sources through tsx; its dependencies load from their built output. */
export function buildDependencies(): void {
  const missing = ["schema", "clock", "memory"].some(
    (name) => !existsSync(resolve(packageRoot, `../${name}/dist/index.js`)),
  );
  if (missing) {
    execFileSync("pnpm", ["turbo", "run", "build", "--filter", "@cg/writer^..."], {
      cwd: resolve(packageRoot, "../.."),
      stdio: "ignore",
    });
  }
}

export interface RunningChild {
  child: ChildProcess;
  /** Resolves with the first stdout line that starts with `prefix`; rejects if the child ends first. */
  line(prefix: string): Promise<string>;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

export function startChild(script: string, args: string[]): RunningChild {
  const child = spawn(process.execPath, ["--import", tsxLoader, join(here, script), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: { prefix: string; resolve: (line: string) => void }[] = [];
  const check = (): void => {
    const lines = stdout.split("\n").slice(0, -1);
    for (let index = waiters.length - 1; index >= 0; index--) {
      const waiter = waiters[index] as (typeof waiters)[number];
      const found = lines.find((line) => line.startsWith(waiter.prefix));
      if (found !== undefined) {
        waiters.splice(index, 1);
        waiter.resolve(found);
      }
    }
  };
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    check();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolveExit) => {
    child.on("close", (code, signal) => resolveExit({ code, signal, stdout, stderr }));
  });
  return {
    child,
    exited,
    line(prefix) {
      return new Promise<string>((resolveLine, reject) => {
        waiters.push({ prefix, resolve: resolveLine });
        check();
        void exited.then(({ code, signal }) =>
          reject(new Error(`child ended (${code ?? signal}) before "${prefix}": ${stdout}${stderr}`)),
        );
      });
    },
  };
}
