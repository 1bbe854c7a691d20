// Import of profiles whose times are anywhere in u64 microseconds, whose node events fall outside
// their run's window, or whose times cannot sit on a trace clock: exact, reported, or refused with
// the file and line — never rounded, dropped silently or left half written.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeHealth, parseTrace, parseTraceText } from "@cg/parser";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { importOrtProfile } from "../src/import-ort-profile.js";
import { OrtProfileError } from "../src/ort-profile-error.js";

const directory = mkdtempSync(join(tmpdir(), "cg-onnxruntime-exact-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

// Written by hand: JSON.stringify cannot write integers above 2^53 exactly.
function nodeLine(name: string, ts: bigint | string, dur: bigint | string): string {
  return `{"cat":"Node","pid":7,"tid":7,"dur":${dur},"ts":${ts},"ph":"X","name":"${name}_kernel_time","args":{"op_name":"Relu","provider":"CPUExecutionProvider","output_type_shape":[{"float":[2,4]}],"output_size":"32"}}`;
}

function sessionLine(name: string, ts: bigint | string, dur: bigint | string): string {
  return `{"cat":"Session","pid":7,"tid":7,"dur":${dur},"ts":${ts},"ph":"X","name":"${name}","args":{}}`;
}

let files = 0;
function profileFile(lines: string[]): string {
  const path = join(directory, `profile-${++files}.json`);
  writeFileSync(path, `[\n${lines.join(",\n")}\n]\n`);
  return path;
}

async function rejection(promise: Promise<unknown>): Promise<OrtProfileError> {
  try {
    await promise;
  } catch (error) {
    if (OrtProfileError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected an OrtProfileError");
}

describe("exact microseconds", () => {
  it("keeps 3 µs after a model_run at 2^53 µs as 3000 ns (a double gives 3072)", async () => {
    const start = 2n ** 53n;
    const path = profileFile([nodeLine("n", start + 3n, 7n), sessionLine("model_run", start, 20n)]);
    const trace = parseTraceText((await importOrtProfile(path)).traceText ?? "");
    expect(trace.ops.map((op) => [op.timestamp_ns, op.duration_ns])).toEqual([[3000, 7000]]);
    expect(analyzeHealth(trace).trusted).toBe(true);
  });

  it("places every node exactly for any u64 start of the run (µs × 1000 in integers)", async () => {
    const offset = fc.bigInt({ min: 0n, max: 2n ** 41n });
    const run = fc.record({
      start: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n - 2n ** 43n }),
      first: offset,
      second: offset,
      firstDuration: offset,
      secondDuration: offset,
    });
    await fc.assert(
      fc.asyncProperty(run, async ({ start, first, second, firstDuration, secondDuration }) => {
        const [early, late] = first <= second ? [first, second] : [second, first];
        const window = late + secondDuration + firstDuration + 1n;
        const path = profileFile([
          nodeLine("a", start + early, firstDuration),
          nodeLine("b", start + late, secondDuration),
          sessionLine("model_run", start, window),
        ]);
        const imported = await importOrtProfile(path);
        rmSync(path);
        const trace = parseTraceText(imported.traceText ?? "");
        const measured = trace.spans.find((span) => span.measured);
        expect(BigInt(measured?.duration_ns ?? -1)).toBe(window * 1000n);
        expect(trace.ops.map((op) => [BigInt(op.timestamp_ns ?? -1), BigInt(op.duration_ns)])).toEqual([
          [early * 1000n, firstDuration * 1000n],
          [late * 1000n, secondDuration * 1000n],
        ]);
        expect(imported.profile.modelRun.startUs).toBe(start);
        expect(analyzeHealth(trace).trusted).toBe(true);
      }),
      { numRuns: 80 },
    );
  });
});

describe("node events outside the run's model_run window", () => {
  it("are written outside model_run, counted, tagged, and make the trace untrusted", async () => {
    const path = profileFile([
      sessionLine("model_run", 100n, 10n), // run 1
      nodeLine("early", 950n, 5n),
      nodeLine("inside", 1001n, 3n),
      nodeLine("late", 1200n, 4n),
      sessionLine("SequentialExecutor::Execute", 1000n, 8n),
      sessionLine("model_run", 1000n, 10n),
    ]);
    const out = join(directory, "outside.jsonl");
    const imported = await importOrtProfile(path, { out });
    expect(imported.summary.outOfWindowNodes).toBe(2);
    expect(imported.profile.outOfWindow.map((node) => [node.nodeName, node.line])).toEqual([
      ["early", 3],
      ["late", 5],
    ]);
    const trace = await parseTrace(out);
    expect(trace.run.tags.ort_out_of_window_node_events).toBe("2");
    // Nothing lost: every node is an op, at its own time; the clock starts at the earliest event.
    expect(trace.ops.map((op) => op.timestamp_ns).sort((a, b) => Number(a) - Number(b))).toEqual([
      0, 51_000, 250_000,
    ]);
    const measured = trace.spans.find((span) => span.measured);
    expect(measured?.start_ns).toBe(50_000);
    const health = analyzeHealth(trace);
    expect(health.trusted).toBe(false);
    const outside = health.issues.filter((issue) => issue.code === "child_outside_parent");
    const names = outside.map((issue) => trace.spans.find((span) => span.id === issue.span_id)?.name);
    expect(names.sort()).toEqual(["early", "late"]);
  });

  it("a run whose every node is outside its window is no longer a trusted run with 0 ops", async () => {
    const path = profileFile([nodeLine("stray", 10n, 2n), sessionLine("model_run", 500n, 10n)]);
    const imported = await importOrtProfile(path);
    const trace = parseTraceText(imported.traceText ?? "");
    expect(trace.ops).toHaveLength(1);
    expect(analyzeHealth(trace).trusted).toBe(false);
  });

  it("node events after the last model_run belong to no run: counted and tagged, never silently lost", async () => {
    const path = profileFile([
      nodeLine("n", 501n, 2n),
      sessionLine("model_run", 500n, 10n),
      nodeLine("cut-off-a", 900n, 2n),
      nodeLine("cut-off-b", 903n, 2n),
    ]);
    const imported = await importOrtProfile(path);
    expect(imported.profile.unassignedNodes).toBe(2);
    const trace = parseTraceText(imported.traceText ?? "");
    expect(trace.run.tags.ort_unassigned_node_events).toBe("2");
    expect(trace.ops).toHaveLength(1);
  });

  it("a run with every node inside writes no tag", async () => {
    const path = profileFile([nodeLine("n", 501n, 2n), sessionLine("model_run", 500n, 10n)]);
    const trace = parseTraceText((await importOrtProfile(path)).traceText ?? "");
    expect(Object.hasOwn(trace.run.tags, "ort_out_of_window_node_events")).toBe(false);
    expect(Object.hasOwn(trace.run.tags, "ort_unassigned_node_events")).toBe(false);
  });
});

describe("times a trace cannot hold", () => {
  it("a huge dur is refused with the file, line and field, and no trace is written", async () => {
    const path = profileFile([
      sessionLine("session_initialization", 1n, 5n),
      nodeLine("n", 1001n, 2n ** 60n),
      sessionLine("model_run", 1000n, 10n),
    ]);
    const out = join(directory, "never.jsonl");
    const error = await rejection(importOrtProfile(path, { out }));
    expect(error.code).toBe("invalid_event");
    expect(error.line).toBe(3);
    expect(error.field).toBe("dur");
    expect(error.message).toBe(
      `${path} line 3: field \`dur\` puts the event end at ${(1n + 2n ** 60n) * 1000n} ns on the trace clock (${1001n + 2n ** 60n} µs; the run's model_run starts at 1000 µs), outside 0..9007199254740991 ns, which a trace span can hold`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("a time beyond u64, or not a whole number, is refused naming the line", async () => {
    const beyond = profileFile([nodeLine("n", "18446744073709551616", 1n), sessionLine("model_run", 1n, 9n)]);
    const error = await rejection(importOrtProfile(beyond));
    expect(error.message).toBe(
      `${beyond} line 2: field \`ts\` must fit in 64 bits (at most 18446744073709551615 µs), got 18446744073709551616`,
    );
    const fraction = profileFile([sessionLine("model_run", "1e300", 9n)]);
    expect((await rejection(importOrtProfile(fraction))).message).toBe(
      `${fraction} line 2: field \`ts\` must be a whole number of microseconds ≥ 0`,
    );
  });
});
