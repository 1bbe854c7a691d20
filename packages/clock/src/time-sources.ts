// The two time sources a clock can read. Nothing here imports `node:` modules: `process.hrtime` is
// looked up on `globalThis` so the package also loads in browsers, where `performance.now()` is used.

interface HrtimeProcess {
  hrtime: { (): [number, number]; bigint(): bigint };
}

/** `process.hrtime.bigint` when this runtime has it (Node, Bun, Deno's Node compat), else undefined. */
export function findHrtime(): (() => bigint) | undefined {
  const candidate = (globalThis as { process?: Partial<HrtimeProcess> }).process?.hrtime;
  if (typeof candidate?.bigint !== "function") return undefined;
  const hrtime = candidate as HrtimeProcess["hrtime"];
  return () => hrtime.bigint();
}

/**
 * `process.hrtime` (seconds and nanoseconds of the same reading as `process.hrtime.bigint()`, with
 * no BigInt to allocate) when this runtime has it, else undefined.
 */
export function findHrtimeParts(): (() => [number, number]) | undefined {
  const candidate = (globalThis as { process?: Partial<HrtimeProcess> }).process?.hrtime;
  if (typeof candidate !== "function" || typeof candidate.bigint !== "function") return undefined;
  // Node's process.hrtime does not use `this`; called directly it can be inlined into the reader.
  return candidate as () => [number, number];
}

/** `performance` of this realm; every supported runtime (Node ≥ 16, browsers, workers) has one. */
export function findPerformance(): { now(): number; readonly timeOrigin: number } {
  const candidate = (globalThis as { performance?: { now(): number; timeOrigin: number } }).performance;
  if (typeof candidate?.now !== "function") {
    throw new TypeError("no monotonic time source: neither process.hrtime.bigint nor performance.now exists");
  }
  return candidate;
}

/** Process id from `globalThis.process.pid`, or 0 where there is no process (browsers). */
export function processId(): number {
  const pid = (globalThis as { process?: { pid?: unknown } }).process?.pid;
  return typeof pid === "number" && Number.isSafeInteger(pid) && pid >= 0 ? pid : 0;
}
