// A capture killed with SIGKILL leaves a file whose complete lines all parse; in `line` durability
// every recorded event is there. A process that exits without finish() still flushes its buffer.
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { buildDependencies, startChild as startScript } from "./child-runner.js";
import { checkTrace, tempDirForFile } from "./support.js";

const inWorkDir = tempDirForFile("cg-writer-child-");
beforeAll(buildDependencies, 120_000);

function startChild(args: string[]): { child: ChildProcess; firstLine: Promise<string> } {
  const running = startScript("capture-child.ts", args);
  return { child: running.child, firstLine: running.line("") };
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolvePromise) => {
    child.on("exit", () => resolvePromise());
    child.kill("SIGKILL");
  });
}

/** The complete (LF-terminated) lines of a file, checked with the ordering rules. */
function completeLines(path: string): { count: number; lastKind: string | undefined } {
  const text = readFileSync(path, "utf8");
  const complete = text.slice(0, text.lastIndexOf("\n") + 1);
  const { events } = checkTrace(complete);
  return { count: events.length, lastKind: events.at(-1)?.kind };
}

describe("SIGKILL mid-capture", () => {
  for (const events of [0, 37, 5000]) {
    it(`line durability keeps every event recorded before the kill (${events} events)`, async () => {
      const path = inWorkDir(`line-${events}.jsonl`);
      const { child, firstLine } = startChild([path, "line", "pause", String(events)]);
      const ready = await firstLine;
      await kill(child);
      const expected = Number(ready.split(" ")[1]);
      expect(completeLines(path).count).toBe(expected);
      expect(readFileSync(path, "utf8").endsWith("\n")).toBe(true);
    });
  }

  for (const events of [37, 5000]) {
    it(`buffered durability leaves only whole, valid lines (${events} events)`, async () => {
      const path = inWorkDir(`buffered-${events}.jsonl`);
      const { child, firstLine } = startChild([path, "buffered", "pause", String(events)]);
      const ready = await firstLine;
      await kill(child);
      const { count } = completeLines(path);
      expect(count).toBeLessThanOrEqual(Number(ready.split(" ")[1]));
      expect(readFileSync(path, "utf8").endsWith("\n") || count === 0).toBe(true);
    });
  }

  for (const durability of ["line", "buffered"]) {
    it(`a kill while writing at full speed leaves parseable lines (${durability})`, async () => {
      const path = inWorkDir(`stream-${durability}.jsonl`);
      const { child, firstLine } = startChild([path, durability, "stream", "0"]);
      await firstLine;
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 50));
      await kill(child);
      const { count } = completeLines(path);
      expect(count).toBeGreaterThan(durability === "line" ? 1000 : 2);
    });
  }
});

describe("exit without finish", () => {
  it("process exit flushes the buffered lines (no root end)", async () => {
    const path = inWorkDir("exit.jsonl");
    const { child, firstLine } = startChild([path, "buffered", "exit", "300"]);
    const done = await firstLine;
    await new Promise((resolvePromise) => child.on("exit", resolvePromise));
    const { count, lastKind } = completeLines(path);
    expect(count).toBe(Number(done.split(" ")[1]));
    expect(lastKind).not.toBe("span_end");
  });
});
