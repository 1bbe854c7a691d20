// Process-level faults: a fatal signal must not lose buffered events nor change how the process
// ends; two sessions (in one process or two) can never write one path; an uncreatable path fails
// at once. Each case runs in a child process.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { ProfileRun, TraceSession, TraceSessionError } from "@cg/writer";
import { beforeAll, describe, expect, it } from "vitest";
import { buildDependencies, startChild } from "./child-runner.js";
import { checkTrace, eventsOfKind, tempDirForFile } from "./support.js";

const inWorkDir = tempDirForFile("cg-writer-signals-");
beforeAll(buildDependencies, 120_000);

const BATCH = 1013; // not a multiple of the lines a buffer holds, so a lost buffer tail shows

/** The op indices in the file, checked to be 0..n-1 in order; returns n. */
function contiguousOps(path: string): { ops: number; lastKind: string | undefined } {
  const { events } = checkTrace(readFileSync(path, "utf8"));
  const ops = eventsOfKind(events, "op");
  ops.forEach((op, index) => {
    if (op.op_name !== `matmul-${index}`) throw new Error(`op ${index} is ${op.op_name}`);
  });
  return { ops: ops.length, lastKind: events.at(-1)?.kind };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("fatal signals", () => {
  const cases = [
    ["SIGINT", "buffered"],
    ["SIGTERM", "buffered"],
    ["SIGTERM", "line"],
    ["SIGINT", "line"],
  ] as const;
  for (const [signal, durability] of cases) {
    it(`${signal} without a host handler flushes every recorded op and still ends the process by ${signal} (${durability})`, async () => {
      for (let round = 0; round < 3; round++) {
        const path = inWorkDir(`${signal}-${durability}-${round}.jsonl`);
        const child = startChild("signal-child.ts", ["record", path, durability, "none", String(BATCH)]);
        await child.line("GO");
        await pause(5 + Math.floor(Math.random() * 150));
        child.child.kill(signal);
        const { code, signal: endedBy } = await child.exited;
        // Ended by the signal itself, as it would have been without the writer.
        expect({ code, endedBy }).toEqual({ code: null, endedBy: signal });
        const { ops } = contiguousOps(path);
        // The signal is delivered between batches: every batch recorded before it is in the file.
        expect(ops).toBeGreaterThanOrEqual(BATCH);
        expect(ops % BATCH).toBe(0);
        // The process is gone, so its lock must not block the next capture.
        const next = TraceSession.open(path, ProfileRun.training("next", 1, "cpu"));
        next.finish();
      }
    });
  }

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`with a host ${signal} handler the process is not ended and the trace completes`, async () => {
      const path = inWorkDir(`handled-${signal}.jsonl`);
      const child = startChild("signal-child.ts", ["record", path, "buffered", signal, String(BATCH)]);
      await child.line("GO");
      await pause(5 + Math.floor(Math.random() * 100));
      child.child.kill(signal);
      const finished = await child.line("FINISHED");
      const { code, signal: endedBy, stdout } = await child.exited;
      expect({ code, endedBy }).toEqual({ code: 0, endedBy: null });
      expect(stdout).toContain("HANDLED");
      const { ops, lastKind } = contiguousOps(path);
      expect(ops).toBe(Number(finished.split(" ")[1]));
      expect(lastKind).toBe("span_end");
    });
  }
});

describe("one path, one session", () => {
  const run = ProfileRun.training("train::update", 1, "cpu");
  const op = { opName: "matmul", shape: [8, 8], dtype: "f32", device: "cpu", durationNs: 5 } as const;

  it("a second session in the same process fails at open and the first keeps its file", () => {
    const path = inWorkDir("shared-in-process.jsonl");
    const first = TraceSession.open(path, run);
    for (let index = 0; index < 50_000; index++) first.recordOp("s1", op);
    let refused: unknown;
    try {
      TraceSession.open(path, run);
    } catch (error) {
      refused = error;
    }
    expect(TraceSessionError.isInstance(refused)).toBe(true);
    expect((refused as TraceSessionError).code).toBe("path_in_use");
    expect((refused as Error).message).toMatch(
      /already being written by another trace session in this process/,
    );
    // Through a different spelling of the same file too.
    expect(() => TraceSession.open(inWorkDir(".", "x", "..", "shared-in-process.jsonl"), run)).toThrow(
      /already being written/,
    );
    first.finish();
    expect(eventsOfKind(checkTrace(readFileSync(path, "utf8")).events, "op")).toHaveLength(50_000);
    expect(existsSync(`${path}.lock`)).toBe(false);
    // Finished: the path is free again.
    TraceSession.open(path, run).finish();
  });

  it("a second process fails at open while the first lives, and succeeds once it is gone", async () => {
    const path = inWorkDir("shared-two-processes.jsonl");
    const holder = startChild("signal-child.ts", ["try-open", path]);
    await holder.line("OPENED");
    const second = startChild("signal-child.ts", ["try-open", path]);
    const refused = await second.line("ERROR");
    expect(refused).toContain(`ERROR TraceSessionError path_in_use`);
    expect(refused).toContain(`a trace session in process ${holder.child.pid}`);
    expect((await second.exited).code).toBe(3);
    expect(() => TraceSession.open(path, run)).toThrow(`a trace session in process ${holder.child.pid}`);
    // A killed owner leaves its lock file behind; the next open sees the owner is gone.
    holder.child.kill("SIGKILL");
    await holder.exited;
    expect(existsSync(`${path}.lock`)).toBe(true);
    const third = startChild("signal-child.ts", ["try-open", path]);
    await third.line("OPENED");
    third.child.kill("SIGTERM");
    expect((await third.exited).signal).toBe("SIGTERM");
    // SIGTERM ran the exit hook, which gave the lock up.
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("a lock naming a dead process is taken over; another host's or an unreadable one is reported", () => {
    const path = inWorkDir("stale.jsonl");
    const deadPid = 2 ** 22 + 7; // above Linux's largest pid_max
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: deadPid, start: "1", host: hostname() }));
    TraceSession.open(path, run).finish();
    expect(existsSync(`${path}.lock`)).toBe(false);
    // Another host cannot be checked: reported, never broken.
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: deadPid, start: "1", host: "elsewhere" }));
    expect(() => TraceSession.open(path, run)).toThrow(`process ${deadPid} on host elsewhere`);
    writeFileSync(`${path}.lock`, "not json");
    expect(() => TraceSession.open(path, run)).toThrow(`unreadable lock file ${path}.lock`);
    rmSync(`${path}.lock`);
    TraceSession.open(path, run).finish();
  });
});

describe("paths that cannot be created", () => {
  for (const path of ["/proc/self/nope/t.jsonl", "/proc/nope/deeper/t.jsonl", "/sys/nope/t.jsonl"]) {
    it(`${path} fails at open with the system error`, async () => {
      const child = startChild("signal-child.ts", ["try-open", path]);
      const guard = setTimeout(() => child.child.kill("SIGKILL"), 20_000);
      const { stdout, signal } = await child.exited;
      clearTimeout(guard);
      expect(signal).toBeNull();
      expect(stdout).toMatch(
        /^ERROR TraceWriteError (ENOENT|EPERM|EACCES|EROFS) creating the parent directory of /,
      );
      expect(stdout).toContain(path);
    });
  }
});
