// One file, one session, whatever its name: a hard link, a symbolic link or a `sub/../x` spelling of
// a file a live session writes is refused before anything is truncated, in one process and across
// processes, and the message names both paths.
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ProfileRun, TraceSession, TraceSessionError } from "@cg/writer";
import { beforeAll, describe, expect, it } from "vitest";
import { buildDependencies, startChild } from "./child-runner.js";
import { checkTrace, eventsOfKind, tempDirForFile } from "./support.js";

const inWorkDir = tempDirForFile("cg-writer-aliases-");
beforeAll(buildDependencies, 120_000);

const run = ProfileRun.training("train::update", 1, "cpu");
const op = { opName: "matmul", shape: [8, 8], dtype: "f32", device: "cpu", durationNs: 5 } as const;

function refusal(open: () => unknown): TraceSessionError {
  try {
    open();
  } catch (error) {
    if (TraceSessionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the open to be refused");
}

describe("aliases of a file being written", () => {
  it("a hard link, a symbolic link and a relative spelling are refused in the same process; the first file stays whole", () => {
    const path = inWorkDir("in-process", "original.jsonl");
    const first = TraceSession.open(path, run);
    for (let index = 0; index < 50_000; index++) first.recordOp("s1", op); // several buffers written
    const real = realpathSync(path);
    mkdirSync(inWorkDir("in-process-other"));
    const hardLink = inWorkDir("in-process-other", "hard-link.jsonl");
    linkSync(path, hardLink);
    const symbolicLink = inWorkDir("in-process", "symbolic.jsonl");
    symlinkSync(path, symbolicLink);
    mkdirSync(inWorkDir("in-process", "sub"), { recursive: true });
    const spelled = join(inWorkDir("in-process", "sub"), "..", "original.jsonl");

    const byLink = refusal(() => TraceSession.open(hardLink, run));
    expect(byLink.code).toBe("path_in_use");
    expect(byLink.message).toContain(`${realpathSync(hardLink)} is the same file as ${real} (device `);
    expect(byLink.message).toContain("already being written by another trace session in this process");
    for (const alias of [symbolicLink, spelled]) {
      const refused = refusal(() => TraceSession.open(alias, run));
      expect(refused.code).toBe("path_in_use");
      expect(refused.message).toContain(real);
    }
    first.finish();
    // Nothing truncated or interleaved it: the trace is complete and valid.
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain("\u0000");
    expect(eventsOfKind(checkTrace(text).events, "op")).toHaveLength(50_000);
    // Finished: the file is free again, under any of its names.
    TraceSession.open(hardLink, run).finish();
    expect(checkTrace(readFileSync(path, "utf8")).events.length).toBeGreaterThan(0);
  });

  it("a second process writing through a hard link or a symbolic link fails while the first lives, and succeeds once it is gone", async () => {
    const path = inWorkDir("two-processes", "original.jsonl");
    const holder = startChild("signal-child.ts", ["try-open", path]);
    await holder.line("OPENED");
    mkdirSync(inWorkDir("two-processes-links"));
    const hardLink = inWorkDir("two-processes-links", "hard-link.jsonl");
    linkSync(path, hardLink);
    const symbolicLink = inWorkDir("two-processes-links", "symbolic.jsonl");
    symlinkSync(path, symbolicLink);

    // Both aliases at once: each child is a full Node start, slow on a loaded machine.
    const byHardLink = startChild("signal-child.ts", ["try-open", hardLink]);
    const bySymbolicLink = startChild("signal-child.ts", ["try-open", symbolicLink]);
    const refused = await byHardLink.line("ERROR");
    expect(refused).toContain("ERROR TraceSessionError path_in_use");
    expect(refused).toContain(`${realpathSync(hardLink)} is the same file as ${realpathSync(path)}`);
    expect(refused).toContain(`a trace session in process ${holder.child.pid}`);
    expect(await bySymbolicLink.line("ERROR")).toContain(`a trace session in process ${holder.child.pid}`);
    expect((await byHardLink.exited).code).toBe(3);
    expect((await bySymbolicLink.exited).code).toBe(3);

    // A killed owner leaves its locks behind; the next open through the link sees the owner is gone.
    holder.child.kill("SIGKILL");
    await holder.exited;
    const fourth = startChild("signal-child.ts", ["try-open", hardLink]);
    await fourth.line("OPENED");
    fourth.child.kill("SIGTERM");
    expect((await fourth.exited).signal).toBe("SIGTERM");
    expect(existsSync(`${realpathSync(hardLink)}.lock`)).toBe(false);
  }, 90_000);

  it("refuses an identity-lock directory another user could write or that is a link, leaving the file as it was", () => {
    const temp = inWorkDir("fake-temp");
    mkdirSync(temp);
    const lockDirectory = join(temp, `cg-writer-locks-${process.getuid?.() ?? "user"}`);
    mkdirSync(lockDirectory);
    chmodSync(lockDirectory, 0o777);
    const path = inWorkDir("kept.jsonl");
    writeFileSync(path, "old content\n");
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    try {
      expect(() => TraceSession.open(path, run)).toThrow(
        `${lockDirectory} is not a private directory of this user; remove it`,
      );
      rmSync(lockDirectory, { recursive: true });
      symlinkSync(inWorkDir("in-process"), lockDirectory);
      expect(() => TraceSession.open(path, run)).toThrow(`${lockDirectory} is not a private directory`);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(readFileSync(path, "utf8")).toBe("old content\n");
    expect(existsSync(`${path}.lock`)).toBe(false);
    TraceSession.open(path, run).finish();
  });
});
