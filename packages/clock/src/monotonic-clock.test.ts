import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { type ClockOrigin, defaultMonotonicClock, MonotonicClock, monotonicNow } from "./monotonic-clock.js";

describe("MonotonicClock", () => {
  it("starts near 0 and counts integer nanoseconds", () => {
    const clock = new MonotonicClock();
    const first = clock.now();
    expect(Number.isSafeInteger(first)).toBe(true);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(first).toBeLessThan(1e9);
    expect(clock.origin.kind).toBe("hrtime");
  });

  it("never decreases and is never negative across many reads", () => {
    const clock = new MonotonicClock();
    let previous = -1;
    let previousBig = -1n;
    for (let index = 0; index < 200_000; index++) {
      const value = clock.now();
      if (value < previous || !Number.isInteger(value))
        throw new Error(`read ${index}: ${value} < ${previous}`);
      previous = value;
      const big = clock.nowBigInt();
      if (big < previousBig) throw new Error(`bigint read ${index}: ${big} < ${previousBig}`);
      previousBig = big;
    }
    expect(previous).toBeGreaterThan(0);
  });

  it("advances with real time", async () => {
    const clock = new MonotonicClock();
    const start = clock.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(clock.now() - start).toBeGreaterThanOrEqual(15e6);
  });

  it("fromOrigin in the same thread reads the same timeline", () => {
    const clock = new MonotonicClock();
    const copy = MonotonicClock.fromOrigin(structuredClone(clock.origin));
    const before = clock.now();
    const middle = copy.now();
    const after = clock.now();
    expect(before).toBeLessThanOrEqual(middle);
    expect(middle).toBeLessThanOrEqual(after);
  });

  it("now() reads the nanoseconds nowBigInt() reads, whatever the origin's sub-second part", () => {
    const current = process.hrtime.bigint();
    // Origins whose nanoseconds are above and below the reading's (a borrow either way), one past
    // 2^53 ns away (read through the BigInt), and one with 0 nanoseconds.
    const distances = [3n, 999_999_999n, 1_000_000_001n, 7_500_000_123n, 200n * 86_400n * 1_000_000_000n];
    for (const distance of distances) {
      for (const origin of [current - distance, ((current - distance) / 1_000_000_000n) * 1_000_000_000n]) {
        const clock = MonotonicClock.fromOrigin({ kind: "hrtime", ns: origin });
        const before = clock.now();
        const exact = clock.nowBigInt();
        const after = clock.now();
        expect(before).toBeLessThanOrEqual(Number(exact));
        expect(Number(exact)).toBeLessThanOrEqual(after);
        expect(after - before).toBeLessThan(1e9);
      }
    }
  });

  it("clamps an origin in the future to 0 instead of going negative", () => {
    const origin: ClockOrigin = { kind: "hrtime", ns: process.hrtime.bigint() + 10_000_000_000n };
    const clock = MonotonicClock.fromOrigin(origin);
    expect(clock.now()).toBe(0);
    expect(clock.nowBigInt()).toBe(0n);
  });

  it("supports the performance.now() fallback origin", async () => {
    const clock = MonotonicClock.fromOrigin({
      kind: "performance",
      ms: performance.timeOrigin + performance.now(),
    });
    const first = clock.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = clock.now();
    expect(Number.isInteger(second)).toBe(true);
    expect(second).toBeGreaterThan(first);
    expect(second).toBeLessThan(10e9);
  });

  it("rejects malformed origins", () => {
    expect(() => MonotonicClock.fromOrigin({ kind: "hrtime", ns: 5 } as unknown as ClockOrigin)).toThrow(
      /invalid MonotonicClock origin/,
    );
    expect(() => MonotonicClock.fromOrigin({ kind: "performance", ms: Number.NaN })).toThrow(TypeError);
    expect(() => MonotonicClock.fromOrigin(null as unknown as ClockOrigin)).toThrow(TypeError);
  });

  it("monotonicNow uses one process-wide default clock", () => {
    const first = monotonicNow();
    const second = defaultMonotonicClock().now();
    expect(defaultMonotonicClock()).toBe(defaultMonotonicClock());
    expect(second).toBeGreaterThanOrEqual(first);
  });
});

/** Transpiles this package's real TypeScript sources to plain ES modules a worker can load. */
async function transpileSources(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "cg-clock-"));
  await writeFile(join(directory, "package.json"), '{"type":"module"}');
  for (const name of ["monotonic-clock", "time-sources"]) {
    const source = await readFile(fileURLToPath(new URL(`./${name}.ts`, import.meta.url)), "utf8");
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await writeFile(join(directory, `${name}.js`), outputText);
  }
  return directory;
}

describe("MonotonicClock across threads", () => {
  it("a worker's fromOrigin clock reads the same timeline as the main thread's", async () => {
    // The worker runs this package's own clock code (transpiled, not a copy), so the cross-thread path
    // (structured-cloned origin -> fromOrigin -> now) is exercised exactly as a sampler worker uses it.
    const directory = await transpileSources();
    const code = `
      const { parentPort, workerData } = require("node:worker_threads");
      import(workerData.sourceUrl).then(({ MonotonicClock }) => {
        parentPort.on("message", (origin) => {
          const clock = MonotonicClock.fromOrigin(origin);
          const readings = [clock.now(), clock.now(), clock.now()];
          parentPort.postMessage({ readings, originKind: clock.origin.kind });
        });
        parentPort.postMessage("ready");
      });`;
    const sourceUrl = pathToFileURL(join(directory, "monotonic-clock.js")).href;
    const worker = new Worker(code, { eval: true, workerData: { sourceUrl } });
    try {
      await new Promise<void>((resolve, reject) => {
        worker.once("message", () => resolve());
        worker.once("error", reject);
      });
      const clock = new MonotonicClock();
      await new Promise((resolve) => setTimeout(resolve, 10));
      const before = clock.now();
      const reply = new Promise<{ readings: number[]; originKind: string }>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
      worker.postMessage(clock.origin);
      const { readings, originKind } = await reply;
      const after = clock.now();
      expect(originKind).toBe("hrtime");
      expect(readings).toHaveLength(3);
      // Same timeline: the worker's readings lie between the main thread's readings around the exchange.
      for (const reading of readings) {
        expect(reading).toBeGreaterThanOrEqual(before);
        expect(reading).toBeLessThanOrEqual(after);
      }
      // A worker-local clock (own origin) would read ~0 here; ours is at least the 10 ms waited above.
      expect(readings[0]).toBeGreaterThanOrEqual(9e6);
    } finally {
      await worker.terminate();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
