// `cg-trace compare --fail-on` on writer-made trace files: exit 0 when every rule holds, 1 with the
// attribution when one breaks, 2 for a bad rule (what and where), a selector naming nothing, or
// traces that are not comparable (unless --force); GitHub annotations and JSON for CI.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess } from "./run-in-process.js";
import { trainingStep } from "./synthetic-pairs.js";
import { scratchDirForFile } from "./test-files.js";

const scratch = scratchDirForFile("cg-compare-gate-");
const file = (name: string, text: string): string => {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
};
const baseline = file(
  "baseline.jsonl",
  trainingStep({ layers: 4, seed: 1, noise: { perOp: 0, run: 0, bytes: 0 } }),
);
// The same run but backward layer 2's matmul_grad takes 3x as long and layer 1's gradient is 2x.
const candidate = file(
  "candidate.jsonl",
  trainingStep({
    layers: 4,
    seed: 2,
    noise: { perOp: 0, run: 0, bytes: 0 },
    plant: {
      slowOp: { layer: 2, step: "backward", op: "matmul_grad", factor: 3 },
      allocateMore: { layer: 1, factor: 2 },
    },
  }),
);
const onGpu1 = file("gpu1.jsonl", trainingStep({ layers: 4, seed: 3, device: "cuda:1" }));

describe("compare --fail-on", () => {
  it("exits 1 with the attribution when a rule breaks, naming the rule and the part", async () => {
    const run = await runInProcess(["compare", baseline, candidate, "--fail-on", "time>5%,peak>20%"]);
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stdout).toContain("What explains the change");
    expect(run.stdout).toMatch(
      /Step time \+320\.000 µs \(\+[0-9.]+%\); the named parts \+320\.000 µs \(100% of it\):\n {3}1\. +\+320\.000 µs {2}matmul_grad \[32, 1024\] f32 cuda:0 in synthetic::train\/model\/update-000000000007\/layer2\/backward \[function\]\/Backward \(1 → 1 calls\)\n/,
    );
    expect(run.stdout).toMatch(
      /Peak memory \+8\.00 MiB \(\+11\.8%\); the named parts \+8\.00 MiB \(100% of it\); reached in .*layer0\/backward \[function\]\/Backward:\n {3}1\. +\+8\.00 MiB {2}gradient from matmul_grad in .*\/layer1\/backward \[function\]\/Backward \(1 → 1 allocations; largest grad\.1 16\.00 MiB\)\n/,
    );
    expect(run.stdout).toContain(
      "Gate: FAILED (time>5%, peak>20%; 2 checks)\n  broken time>5%: total time +320.000 µs",
    );
    expect(run.stdout).not.toContain("broken peak>20%");
  });

  it("exits 0 when every rule holds, per span and op too", async () => {
    const run = await runInProcess([
      "compare",
      baseline,
      candidate,
      "--fail-on",
      "time>30%,peak>8MiB,span:layer2/backward/time>200%,op:matmul_grad/time>1ms,span:layer1/backward/peak>100%",
    ]);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.stdout).toContain("Gate: PASSED");
    const json = await runInProcess([
      "compare",
      baseline,
      candidate,
      "--fail-on",
      "span:layer2/backward/time>100%",
      "--json",
    ]);
    expect(json.exitCode).toBe(1);
    const comparison = JSON.parse(json.stdout);
    expect(comparison.gate).toEqual({
      rules: ["span:layer2/backward/time>100%"],
      passed: false,
      checks: [
        expect.objectContaining({
          rule: "span:layer2/backward/time>100%",
          metric: "time",
          subject: "span synthetic::train/model/update-000000000007/layer2/backward [function]/Backward",
          delta: 320_000,
          broken: true,
        }),
      ],
    });
    expect(comparison.attribution.time.parts[0]).toMatchObject({ rank: 1, delta_ns: 320_000, match: "path" });
  });

  it("writes GitHub annotations: an error per broken rule, a notice when the gate holds", async () => {
    const broken = await runInProcess([
      "compare",
      baseline,
      candidate,
      "--fail-on",
      "peak>5%,time>1ms",
      "--format",
      "github",
    ]);
    expect(broken.exitCode).toBe(1);
    const lines = broken.stdout.split("\n").filter((line) => line.startsWith("::"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^::error title=cg-trace compare%3A peak>5%25::total peak \+8\.00 MiB \(\+11\.8%25\), 68\.00 MiB → 76\.00 MiB\. Time: \+320\.000 µs matmul_grad .*\. Peak: \+8\.00 MiB gradient from matmul_grad in .*layer1\/backward .*\.$/,
    );
    expect(broken.stdout).toContain("Gate: FAILED");
    const held = await runInProcess([
      "compare",
      baseline,
      baseline,
      "--fail-on",
      "time>5%",
      "--format",
      "github",
    ]);
    expect(held.exitCode).toBe(0);
    expect(held.stdout).toMatch(/^::notice title=cg-trace compare%3A gate passed \(time>5%25\)::time \+0 ns/);
  });

  it.each([
    ["time>5%,peak>5MiX", 'rule 2 of 2 ("peak>5MiX"), at character 15: unknown unit "MiX" for peak'],
    ["time>", 'rule 1 of 1 ("time>"), at character 6: expected a limit'],
    ["span:forwrd/time>5%", 'rule 1 ("span:forwrd/time>5%"): no span path "forwrd"'],
  ])("exits 2 for %j, saying what and where", async (rules, message) => {
    const run = await runInProcess(["compare", baseline, candidate, "--fail-on", rules]);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(message);
    expect(run.stderr.split("\n")).toHaveLength(2);
  });

  it("exits 2 for traces that are not comparable, and compares them with --force", async () => {
    const refused = await runInProcess(["compare", baseline, onGpu1, "--fail-on", "time>5%"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      "cg-trace: compare: the traces are not comparable: device differs: baseline cuda:0, candidate cuda:1 (--force compares them anyway)\n",
    );
    const forced = await runInProcess(["compare", baseline, onGpu1, "--force", "--fail-on", "time>50%"]);
    expect(forced.exitCode).toBe(0);
    expect(forced.stdout).toContain("NOT COMPARABLE");
    expect(forced.stdout).toContain("reason: device differs");
  });
});
