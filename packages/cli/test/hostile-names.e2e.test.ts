// Names inside a trace come from the traced program: control characters in them must not reach the
// terminal raw, and a huge one must not blow up the HTML report. Through the built binary.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, runBinary } from "./built-binary.js";
import { scratchDirForFile } from "./test-files.js";

const scratch = scratchDirForFile("cg-cli-names-");
const cgTrace = (args: string[]) => runBinary(args, { cwd: scratch });

const meta = `{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"2025-01-01T00:00:00.000Z","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}`;

/** A trace whose root span and op are named `spanName` and `opName`. */
function traceNamed(spanName: string, opName: string): string {
  return `${[
    meta,
    `{"kind":"span_start","id":"s1","name":${JSON.stringify(spanName)},"start_ns":0,"span_kind":"function","measured":true,"step":"forward"}`,
    `{"kind":"op","span_id":"s1","op_name":${JSON.stringify(opName)},"shape":[2],"dtype":"f32","device":"cpu","duration_ns":500,"timestamp_ns":10}`,
    `{"kind":"span_end","id":"s1","duration_ns":1000}`,
  ].join("\n")}\n`;
}

beforeAll(ensureBuilt, 300_000);

describe("names from the trace (built binary)", () => {
  // A newline and a cursor-moving, line-clearing sequence: enough to forge a line of output.
  const forgedSpan = "step\nHealth: TRUSTED\u001b[2K\r";
  const forgedOp = "mat\u001b]0;title\u0007mul\u202e";

  it("escapes control characters in every text output, and JSON keeps the exact name", () => {
    writeFileSync(join(scratch, "forged.jsonl"), traceNamed(forgedSpan, forgedOp));
    const outputs = [
      cgTrace(["summary", "forged.jsonl"]),
      cgTrace(["query", "forged.jsonl", "--kind", "ops"]),
      cgTrace(["query", "forged.jsonl", "--kind", "spans"]),
      cgTrace(["query", "forged.jsonl", "--kind", "slowest"]),
      cgTrace(["compare", "forged.jsonl", "forged.jsonl"]),
    ];
    for (const output of outputs) {
      expect(output.status, output.stderr).toBe(0);
      expect(output.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/);
      expect(output.stdout.split("\n")).not.toContain("Health: TRUSTED");
    }
    expect(outputs[0]!.stdout).toContain("step\\nHealth: TRUSTED\\x1b[2K\\r");
    expect(outputs[1]!.stdout).toContain("mat\\x1b]0;title\\x07mul\\u202e");
    const json = JSON.parse(cgTrace(["query", "forged.jsonl", "--kind", "ops", "--json"]).stdout);
    expect(JSON.stringify(json)).toContain(JSON.stringify(forgedOp));
  });

  it("caps a 1 MB span name in the report (with a baseline too), the full value kept once", () => {
    const huge = `layer-${"x".repeat(1024 * 1024)}-end`;
    writeFileSync(join(scratch, "huge.jsonl"), traceNamed(huge, `op-${huge}`));
    const view = cgTrace(["view", "huge.jsonl", "--baseline", "huge.jsonl", "-o", "huge.html"]);
    expect(view.status, view.stderr).toBe(0);
    const size = statSync(join(scratch, "huge.html")).size;
    // Each distinct long string once in full (span name, op name and the paths built from them),
    // instead of once per place it is shown: 117 MB before the cap.
    expect(size).toBeLessThan(6 * 1024 * 1024); // 4.07 MiB
    const html = readFileSync(join(scratch, "huge.html"), "utf8");
    expect(html).toContain("(+1048");
    expect(html.split(huge).length - 1).toBeLessThanOrEqual(4);
  });
});
