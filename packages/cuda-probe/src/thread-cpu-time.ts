import { readFileSync } from "node:fs";

/**
 * CPU time consumed by the calling thread, in ns, or undefined where the OS does not expose it.
 * Node 20 has no per-thread CPU clock, so this reads Linux's /proc/thread-self (schedstat is in ns;
 * stat is in clock ticks). process.cpuUsage() would count every thread of the process.
 */
export function threadCpuTimeNs(): bigint | undefined {
  try {
    const schedstat = readFileSync("/proc/thread-self/schedstat", "utf8");
    const onCpu = schedstat.split(" ")[0];
    if (onCpu !== undefined && /^\d+$/.test(onCpu)) return BigInt(onCpu);
  } catch {
    // fall through to stat
  }
  try {
    const stat = readFileSync("/proc/thread-self/stat", "utf8");
    // Fields after the parenthesised command: state is field 3, utime 14 and stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const userTicks = fields[11];
    const systemTicks = fields[12];
    if (userTicks === undefined || systemTicks === undefined) return undefined;
    return (BigInt(userTicks) + BigInt(systemTicks)) * 10_000_000n; // USER_HZ = 100 on Linux
  } catch {
    return undefined;
  }
}
