// Runs the built `cg-trace` binary as users do, in a fresh `node` of its own (its heap settings
// included), and reads what it cost from the child itself: a module given to `node --import`
// prints the process's peak RSS and CPU time (every thread) on stderr at exit.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../../../packages/cli/dist/bin.js", import.meta.url));
const probe = `data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("\\ncg-bench-probe "+u.maxRSS+" "+(u.userCPUTime+u.systemCPUTime)+"\\n")})`;

export interface BinaryRun {
  /** Peak RSS in bytes. */
  maxRssBytes: number;
  /** CPU time (user + system, all threads) in nanoseconds. */
  cpuNs: number;
  stdout: string;
}

/** Runs `cg-trace args…`; an exit status outside `accepted` (or no probe line) throws. */
export function runBinary(args: readonly string[], accepted: readonly number[] = [0]): BinaryRun {
  const child = spawnSync(process.execPath, ["--import", probe, bin, ...args], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  const match = /cg-bench-probe (\d+) (\d+)/.exec(child.stderr ?? "");
  if (!accepted.includes(child.status ?? -1) || match === null) {
    throw new Error(`cg-trace ${args[0]} failed (${child.status}): ${(child.stderr ?? "").slice(-2000)}`);
  }
  return { maxRssBytes: Number(match[1]) * 1024, cpuNs: Number(match[2]) * 1000, stdout: child.stdout };
}
