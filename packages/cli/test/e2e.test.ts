import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { fixturesDir } from "@cg/tooling-vitest";
import { beforeAll, describe, expect, it } from "vitest";
import { bin, ensureBuilt, packageRoot, repoRoot, runBinary } from "./built-binary.js";
import { type ChromeTrace, checkPerfettoRules } from "./perfetto-rules.js";
import { golden, scratchDirForFile } from "./test-files.js";

const scratch = scratchDirForFile("cg-cli-e2e-");

/** Compiles the cuda-probe package's fake NVML into `directory`; no C compiler is a failure that says so. */
function buildFakeNvml(directory: string): string {
  const source = join(repoRoot, "packages/cuda-probe/test/fixtures/fake-nvml.c");
  const compiler = process.env.CC ?? "cc";
  const output = join(directory, "libfake-nvml.so");
  mkdirSync(directory, { recursive: true });
  try {
    execFileSync(compiler, ["-shared", "-fPIC", "-O2", "-o", output, source], {
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error(
        `the C compiler '${compiler}' was not found: this test builds a fake NVML from ${source}; install a C compiler (e.g. gcc) or set CC`,
      );
    }
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? "";
    throw new Error(`building the fake NVML failed:\n${stderr}`, { cause: error });
  }
  return output;
}

function cgTrace(args: string[], env: Record<string, string> = {}) {
  const { status, stdout, stderr } = runBinary(args, { cwd: scratch, env });
  return { status, stdout, stderr };
}

beforeAll(ensureBuilt, 300_000);

describe("cg-trace (built binary)", () => {
  it("prints its version and help", () => {
    const version = cgTrace(["--version"]);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(
      JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")).version,
    );
    const help = cgTrace(["--help"]);
    expect(help.status).toBe(0);
    for (const command of ["demo", "summary", "validate", "query", "compare", "convert"]) {
      expect(help.stdout).toContain(`  ${command}`);
      const commandHelp = cgTrace([command, "--help"]);
      expect(commandHelp.status, command).toBe(0);
      expect(commandHelp.stdout).toContain(`Usage: cg-trace ${command}`);
    }
  });

  it("suggests the closest command or flag in one line, exit 2", () => {
    const command = cgTrace(["sumary", golden]);
    expect(command).toMatchObject({
      status: 2,
      stdout: "",
      stderr: "cg-trace: unknown command 'sumary' (did you mean summary?); see cg-trace --help\n",
    });
    const flag = cgTrace(["summary", golden, "--jsn"]);
    expect(flag).toMatchObject({
      status: 2,
      stdout: "",
      stderr:
        "cg-trace: summary: unknown option '--jsn' (did you mean --json?); see cg-trace summary --help\n",
    });
    const bare = cgTrace([]);
    expect(bare.status).toBe(0);
    expect(bare.stdout).toContain("Usage: cg-trace [options] [command]");
  });

  it("summarises the golden fixture as text and JSON", () => {
    const text = cgTrace(["summary", golden]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("Health: TRUSTED");
    expect(text.stdout).toContain("Measured total: 90.000 µs (90000 ns)");
    const json = cgTrace(["summary", golden, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      schema: "cg-trace/summary/1",
      summary: { peak_bytes: 4096 },
    });
  });

  it("honours NO_COLOR", () => {
    expect(cgTrace(["summary", golden], { FORCE_COLOR: "1" }).stdout).toContain("\u001b[");
    expect(cgTrace(["summary", golden], { FORCE_COLOR: "1", NO_COLOR: "1" }).stdout).not.toContain("\u001b[");
  });

  it("fails clearly for a missing file, a directory, a non-trace file and a truncated trace", () => {
    const missing = cgTrace(["summary", "nope.jsonl"]);
    expect(missing).toMatchObject({ status: 2, stdout: "" });
    expect(missing.stderr).toBe("cg-trace: nope.jsonl: no such file\n");
    mkdirSync(join(scratch, "folder"), { recursive: true });
    const directory = cgTrace(["validate", "folder"]);
    expect(directory.status).toBe(2);
    expect(directory.stderr).toContain("folder: is a directory");
    writeFileSync(join(scratch, "notes.txt"), "hello\nworld\n");
    const notTrace = cgTrace(["validate", "notes.txt"]);
    expect(notTrace.status).toBe(2);
    expect(notTrace.stderr).toMatch(/^cg-trace: notes\.txt:1: invalid_json: /);
    const text = readFileSync(golden, "utf8");
    writeFileSync(join(scratch, "truncated.jsonl"), text.slice(0, text.length - 40));
    const truncated = cgTrace(["validate", "truncated.jsonl"]);
    expect(truncated.status).toBe(2);
    expect(truncated.stderr).toMatch(/^cg-trace: truncated\.jsonl:18: invalid_json: /);
    const lenient = cgTrace(["validate", "truncated.jsonl", "--lenient"]);
    expect(lenient.status).toBe(1);
    expect(lenient.stdout).toMatch(/truncated\.jsonl:18: truncated: /);
    expect(lenient.stdout).toMatch(/open_span: error: span `s1` was not closed/);
  });

  it("validate exit codes: 0 trusted, 1 untrusted", () => {
    expect(cgTrace(["validate", golden]).status).toBe(0);
    const untrusted = cgTrace(["validate", join(fixturesDir, "health/h01-measurement-count.jsonl")]);
    expect(untrusted.status).toBe(1);
    expect(untrusted.stdout).toContain(
      "measurement_count: error: expected exactly one measured region, found 0",
    );
  });

  it("shows the operator table in query, summary and compare", () => {
    // The MLP demo's trace has several calls of the same kernels.
    expect(cgTrace(["demo", "--model", "mlp", "--no-gpu", "--out", "ops-a"]).status).toBe(0);
    expect(cgTrace(["demo", "--model", "mlp", "--no-gpu", "--out", "ops-b", "--steps", "3"]).status).toBe(0);
    const trace = "ops-a/application.jsonl";
    const json = JSON.parse(cgTrace(["query", trace, "--kind", "ops", "--json"]).stdout);
    const rows = json.result.operators as Array<Record<string, number | string>>;
    expect(json.result.schema).toBe("cg-trace/operators/1");
    expect(rows.find((row) => row.op_name === "sgd_momentum")?.calls).toBe(4);
    const totals = rows.map((row) => row.total_ns as number);
    expect([...totals].sort((left, right) => right - left)).toEqual(totals);
    expect(rows.reduce((sum, row) => sum + (row.calls as number), 0)).toBe(json.result.op_count);
    for (const row of rows) {
      expect(row.min_ns).toBeLessThanOrEqual(row.p50_ns as number);
      expect(row.p50_ns).toBeLessThanOrEqual(row.p95_ns as number);
      expect(row.p95_ns).toBeLessThanOrEqual(row.max_ns as number);
    }
    const text = cgTrace(["query", trace, "--kind", "ops", "--group-by", "shape"]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/Operators.*by op name and shape; percentiles exact/);
    expect(text.stdout).toMatch(/\n {2}sgd_momentum +\[\d+(, \d+)*\] +\d+ /);
    expect(cgTrace(["query", trace, "--kind", "ops", "--group-by", "colour"])).toMatchObject({ status: 2 });
    const summary = cgTrace(["summary", trace, "--limit", "3"]);
    expect(summary.stdout).toMatch(/Top operators by total time \(top 3 of \d+\)/);
    const summaryJson = JSON.parse(cgTrace(["summary", trace, "--json", "--limit", "3"]).stdout);
    expect(summaryJson.top_operators.operators).toEqual(rows.slice(0, 3));
    // Three steps capture a later update (other warm-up steps): not comparable, compared with --force.
    const refused = cgTrace(["compare", trace, "ops-b/application.jsonl", "--json"]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("warmup_steps differs: baseline 1, candidate 2");
    const compare = JSON.parse(
      cgTrace(["compare", trace, "ops-b/application.jsonl", "--json", "--force"]).stdout,
    );
    const momentum = compare.operators.deltas.find(
      (delta: { op_name: string }) => delta.op_name === "sgd_momentum",
    );
    expect(momentum).toMatchObject({ status: "both", baseline_calls: 4, candidate_calls: 4, calls_delta: 0 });
    expect(cgTrace(["compare", trace, "ops-b/application.jsonl", "--force"]).stdout).toContain(
      "Operator deltas",
    );
  });

  it("queries, compares and converts", () => {
    const query = cgTrace(["query", golden, "--kind", "memory", "--json"]);
    expect(JSON.parse(query.stdout).result).toMatchObject({ kind: "memory", summary: { peak_bytes: 4096 } });
    const compare = cgTrace(["compare", golden, golden, "--json"]);
    expect(JSON.parse(compare.stdout)).toMatchObject({
      schema: "candle-graph/comparison/1",
      comparable: true,
    });
    const convert = cgTrace(["convert", golden, "--to", "perfetto", "-o", "golden.json"]);
    expect(convert.status).toBe(0);
    checkPerfettoRules(JSON.parse(readFileSync(join(scratch, "golden.json"), "utf8")) as ChromeTrace);
    expect(readdirSync(scratch).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("demo --model mlp writes a trusted trace, its summary and a Perfetto file", () => {
    const demo = cgTrace(["demo", "--model", "mlp", "--out", "demo-out", "--no-gpu"]);
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).toContain("Health: TRUSTED (0 error(s), 0 warning(s))");
    expect(demo.stdout).toContain("entrypoint:     demo::mlp::train_step (train)");
    expect(demo.stdout).toContain("perfetto: demo-out/trace.perfetto.json");
    expect(cgTrace(["validate", "demo-out/application.jsonl"]).status).toBe(0);
    checkPerfettoRules(
      JSON.parse(readFileSync(join(scratch, "demo-out/trace.perfetto.json"), "utf8")) as ChromeTrace,
    );
    const gradients = cgTrace(["query", "demo-out/application.jsonl", "--kind", "gradients", "--json"]);
    expect(JSON.parse(gradients.stdout).result.gradients).toHaveLength(4);
    // summary --json lists the largest --limit allocations live at the peak and counts the rest.
    const all = JSON.parse(
      cgTrace(["summary", "demo-out/application.jsonl", "--json", "--limit", "100"]).stdout,
    );
    const capped = JSON.parse(
      cgTrace(["summary", "demo-out/application.jsonl", "--json", "--limit", "2"]).stdout,
    );
    expect(all.memory.peak_breakdown_total).toBeGreaterThan(2);
    expect(all.memory.peak_breakdown).toHaveLength(all.memory.peak_breakdown_total);
    expect(all.memory.peak_breakdown_omitted).toBe(0);
    expect(capped.memory.peak_breakdown).toEqual(all.memory.peak_breakdown.slice(0, 2));
    expect(capped.memory.peak_breakdown_omitted).toBe(all.memory.peak_breakdown_total - 2);
  });

  it("demo trains the tfjs model by default and writes into ./cg-trace-out of the current directory", () => {
    const cwd = join(scratch, "default-demo");
    mkdirSync(cwd);
    const result = spawnSync(process.execPath, [bin, "demo"], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "", FORCE_COLOR: "" },
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain("training the TensorFlow.js model");
    expect(result.stderr).not.toContain("tfjs-node");
    expect(result.stdout).toContain("Health: TRUSTED (0 error(s), 1 warning(s))");
    expect(result.stdout).toContain("entrypoint:     tfjs-demo::dense (train)");
    expect(result.stdout).toContain("captured step:  2 after 1 warm-up step(s)");
    expect(result.stdout).toContain("Demo (tfjs): loss per step");
    expect(result.stdout).toContain("perfetto: cg-trace-out/trace.perfetto.json");
    for (const file of ["application.jsonl", "trace.perfetto.json", "report.html"]) {
      expect(existsSync(join(cwd, "cg-trace-out", file)), file).toBe(true);
    }
    const trace = join(cwd, "cg-trace-out/application.jsonl");
    expect(cgTrace(["validate", trace]).status).toBe(0);
    const gradients = cgTrace(["query", trace, "--kind", "gradients", "--json"]);
    expect(JSON.parse(gradients.stdout).result.gradients).toHaveLength(6);
  });

  it("demo samples NVIDIA GPUs through NVML for the tfjs model (a fake libnvidia-ml, real FFI)", () => {
    const library = buildFakeNvml(join(scratch, "fake-nvml"));
    const cwd = join(scratch, "nvml-demo");
    mkdirSync(cwd);
    const shutdownLog = join(scratch, "fake-nvml", "shutdown.log");
    const result = spawnSync(process.execPath, [bin, "demo", "--out", "out"], {
      cwd,
      encoding: "utf8",
      // The fake serves two 16 GiB devices by default: device i uses (i + 1) GiB, 300 MiB reserved.
      env: {
        ...process.env,
        NO_COLOR: "",
        FORCE_COLOR: "",
        CG_NVML_LIBRARY: library,
        FAKE_NVML_LOG: shutdownLog,
      },
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("GPU memory sampled through NVML: cuda:0, cuda:1\n");
    expect(result.stdout).toContain('device "cpu" is tf.memory().numBytes');
    expect(result.stdout).toContain("Health: TRUSTED (0 error(s), 1 warning(s))");
    // The probe was shut down (nvmlShutdown ran once).
    expect(readFileSync(shutdownLog, "utf8")).toBe("nvmlShutdown\n");
    const trace = join(cwd, "out/application.jsonl");
    expect(cgTrace(["validate", trace]).status).toBe(0);
    const summary = JSON.parse(cgTrace(["summary", trace, "--json"]).stdout);
    expect(summary.health.trusted).toBe(true);
    const events = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as { kind: string; device?: string; used_bytes?: number; free_bytes?: number },
      );
    const samples = events.filter((event) => event.kind === "device_memory");
    const gib = 2 ** 30;
    const reserved = 300 * 2 ** 20;
    for (const [index, device] of ["cuda:0", "cuda:1"].entries()) {
      const gpu = samples.filter((sample) => sample.device === device);
      // One checkpoint when the captured step's session opens, one right before it finishes.
      expect(gpu, device).toHaveLength(2);
      for (const sample of gpu) {
        // used = total - free (spec §11.8): the fake's used bytes plus its reserve.
        expect(sample.used_bytes).toBe((index + 1) * gib + reserved);
        expect(sample.free_bytes).toBe(16 * gib - reserved - (index + 1) * gib);
      }
    }
    expect(samples.some((sample) => sample.device === "cpu")).toBe(true);
  });

  it("without TensorFlow.js installed, reading works and the tfjs demo says how to get it", () => {
    const hook = join(packageRoot, "test/fixtures/without-tensorflow.mjs");
    const run = (args: string[]) => {
      const result = spawnSync(process.execPath, ["--import", hook, bin, ...args], {
        cwd: scratch,
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "", CG_NVML_LIBRARY: "/nonexistent/libnvidia-ml.so" },
      });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    };
    // Every reading command runs with TensorFlow.js unresolvable.
    for (const args of [
      ["summary", golden],
      ["summary", golden, "--json"],
      ["validate", golden],
      ["query", golden, "--kind", "ops"],
      ["compare", golden, golden],
      ["convert", golden, "-o", "no-tfjs.json"],
      ["view", golden, "-o", "no-tfjs.html"],
    ]) {
      const result = run(args);
      expect(result.status, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      expect(result.stderr).not.toMatch(/tensorflow|tfjs/i);
    }
    const demo = run(["demo", "--out", "no-tfjs"]);
    expect(demo.status).toBe(2);
    expect(demo.stderr).toContain(
      "cg-trace: the tfjs demo needs TensorFlow.js and @cg/tfjs, which are not installed: run `npm install @tensorflow/tfjs@4 @cg/tfjs`",
    );
    expect(demo.stderr).not.toContain("    at ");
    // The MLP demo needs neither; a machine without the NVIDIA driver gets one short clause about it.
    const mlp = run(["demo", "--model", "mlp", "--out", "no-tfjs"]);
    expect(mlp.status, mlp.stderr).toBe(0);
    expect(mlp.stdout).toContain(
      `no GPU memory sampled (no NVIDIA driver found; set CG_NVML_LIBRARY to use another libnvidia-ml); device "cpu" is the process's memory\n`,
    );
    // That clause is the only mention, on one line; stderr has only the progress line.
    const output = `${mlp.stdout}${mlp.stderr}`.split("\n");
    expect(output.filter((line) => /nvml|libnvidia|driver/i.test(line))).toHaveLength(1);
    expect(mlp.stderr.trim().split("\n")).toEqual([
      "training the TypeScript MLP (64 → 128 → 8, SGD) for 2 steps, capturing step 2…",
    ]);
  });

  it("demo rejects an unknown model", () => {
    const demo = cgTrace(["demo", "--model", "torch"]);
    expect(demo.status).toBe(2);
    expect(demo.stderr).toContain("--model must be one of tfjs, mlp");
  });

  it("loads TensorFlow.js only when the tfjs demo runs", () => {
    const index = pathToFileURL(join(packageRoot, "dist/index.js")).href;
    const probe = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const cli = await import(${JSON.stringify(index)});
         const context = { ...cli.processContext("test"), stdout: () => {}, stderr: () => {} };
         const code = await cli.runCli(["summary", ${JSON.stringify(golden)}], context);
         process.stdout.write(JSON.stringify({ code, tfjs: "_tfengine" in globalThis }));`,
      ],
      { encoding: "utf8" },
    );
    expect(probe.status, probe.stderr).toBe(0);
    expect(JSON.parse(probe.stdout)).toEqual({ code: 0, tfjs: false });
  });
});
