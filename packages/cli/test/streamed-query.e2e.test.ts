// `query` (every kind) streams the trace and prints what the whole-document analyses give: on every
// shared fixture in process, and through the built binary on fixtures and on a generated trace with
// lists longer than the text view's cap (where the text view cuts and says so, and --json does not).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { acceptedFixtures, fixturesDir } from "@cg/tooling-vitest";
import {
  analyzeHealth,
  compareTraces,
  type OperatorGroupField,
  operatorTable,
  parseTrace,
  QUERY_KINDS,
  type QueryResult,
  queryTrace,
  type TraceDocument,
} from "@cg/trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderAttribution, renderComparison } from "../src/commands/compare.js";
import { stringifyJson } from "../src/format/json-output.js";
import { createStyle } from "../src/format/style.js";
import { renderHealth } from "../src/views/render-health.js";
import { renderOperators } from "../src/views/render-operators.js";
import { renderQuery } from "../src/views/render-query.js";
import { TEXT_ROWS } from "../src/views/text-rows.js";
import { bin, ensureBuilt, repoRoot } from "./built-binary.js";
import { itOnEveryParsedFixture, type ParsedFixture, parsedFixture } from "./parsed-fixtures.js";
import { runInProcess } from "./run-in-process.js";

const style = createStyle(false);

/** What the whole-document path prints for `query --kind <kind> [--json]`. */
function documentOutput(
  document: TraceDocument,
  kind: (typeof QUERY_KINDS)[number] | "ops",
  limit: number,
  json: boolean,
  groupBy: OperatorGroupField[] = [],
  shape: (result: QueryResult) => { result: QueryResult; notes: string[] } = (result) => ({
    result,
    notes: [],
  }),
): string {
  const health = analyzeHealth(document);
  if (kind === "ops") {
    const table = operatorTable(document, { groupBy, limit });
    return json
      ? `${stringifyJson({ health, result: table })}\n`
      : `${renderHealth(health, style)}\n${renderOperators(table, style, "Operators")}`;
  }
  const result = queryTrace(document, kind, { limit });
  if (json) return `${stringifyJson({ health, result })}\n`;
  const shown = shape(result);
  return `${renderHealth(health, style)}\n${renderQuery(shown.result, style)}${shown.notes.map((note) => `note: ${note}\n`).join("")}`;
}

const KINDS = [...QUERY_KINDS, "ops"] as const;

/** `node dist/bin.js …` with room for outputs of many MB. */
function runBinary(args: string[]) {
  const run = spawnSync(process.execPath, [bin, ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "", FORCE_COLOR: "" },
    maxBuffer: 512 << 20,
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: `${run.stderr}${run.error ?? ""}` };
}

describe("query streams every kind (in process, every fixture)", () => {
  itOnEveryParsedFixture("%s", async ({ path, document }) => {
    for (const kind of KINDS) {
      for (const json of [true, false]) {
        const args = ["query", path, "--kind", kind, "--limit", "2", ...(json ? ["--json"] : [])];
        const run = await runInProcess(args);
        expect(run.exitCode, run.stderr).toBe(0);
        expect(run.stdout).toBe(documentOutput(document, kind, 2, json));
      }
    }
    const grouped = await runInProcess([
      "query",
      path,
      "--kind",
      "ops",
      "--group-by",
      "path,shape",
      "--json",
    ]);
    expect(grouped.stdout).toBe(documentOutput(document, "ops", 50, true, ["shape", "path"]));
  });
});

describe("past the span budget", () => {
  it.each([
    ["query", "--kind", "spans"],
    ["query", "--kind", "ops", "--group-by", "path"],
    ["compare", "BASE"],
  ])("%s %s %s stops with a message that says what to do", async (...args) => {
    const path = relative(process.cwd(), join(fixturesDir, "valid/golden-train.jsonl"));
    const argv = [args[0] as string, path, ...args.slice(1).map((arg) => (arg === "BASE" ? path : arg))];
    const run = await runInProcess(argv, { env: { CG_TRACE_SPAN_BUDGET_MB: "0.0001" } });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("memory_budget");
    expect(run.stderr).toContain("CG_TRACE_SPAN_BUDGET_MB");
    expect(run.stdout).toBe("");
  });
});

describe("compare streams both traces (in process, every fixture against the next)", () => {
  it("prints the document comparison, by op name and grouped", async () => {
    const documents: ParsedFixture[] = [];
    for (const file of acceptedFixtures) {
      const fixture = await parsedFixture(file);
      if (fixture !== undefined) documents.push(fixture);
    }
    expect(documents.length).toBeGreaterThan(5);
    for (let index = 0; index < documents.length; index++) {
      const baseline = documents[index] as (typeof documents)[number];
      const candidate = documents[(index + 1) % documents.length] as (typeof documents)[number];
      for (const groupBy of [[], ["shape", "path"]] as OperatorGroupField[][]) {
        const expected = compareTraces(baseline.document, candidate.document, { operatorGroupBy: groupBy });
        const grouping = groupBy.length > 0 ? ["--group-by", groupBy.join(",")] : [];
        const force = expected.comparable ? [] : ["--force"];
        const json = await runInProcess([
          "compare",
          baseline.path,
          candidate.path,
          "--json",
          ...grouping,
          ...force,
        ]);
        expect(json.exitCode, json.stderr).toBe(0);
        expect(json.stdout).toBe(`${stringifyJson(expected)}\n`);
        const text = await runInProcess(["compare", baseline.path, candidate.path, ...grouping, ...force]);
        expect(text.stdout).toBe(renderComparison(expected, style) + renderAttribution(expected, style));
      }
    }
  });
});

/**
 * A trace with more tensors, gradients, timeline points and spans than the text view lists: spans
 * whose parents start later (late parents), ops before their span starts, memory events a little out
 * of timestamp order (within the reorder window), and edges.
 */
function generatedTrace(path: string, layers: number): void {
  const lines: string[] = [
    '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"gen::train","phase":"train","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cuda:0","timing_mode":"host","tags":{}}',
    '{"kind":"span_start","id":"root","name":"gen::train","start_ns":0,"span_kind":"function","measured":false}',
    '{"kind":"span_start","id":"m","parent_id":"root","name":"step","start_ns":1,"span_kind":"function","measured":true}',
  ];
  const steps = ["forward", "backward", "optimizer"] as const;
  let clock = 10;
  for (let layer = 0; layer < layers; layer++) {
    const id = `L${layer}`;
    const child = `C${layer}`;
    // The child starts before its parent (a late parent), and one op comes before its span.
    lines.push(
      `{"kind":"op","span_id":"${child}","op_name":"early_add","shape":[4],"dtype":"f32","device":"cuda:0","duration_ns":${(layer % 7) + 1},"timestamp_ns":${clock}}`,
      `{"kind":"span_start","id":"${child}","parent_id":"${id}","name":"inner-${layer % 5}","start_ns":${clock + 1},"span_kind":"function","measured":false}`,
      `{"kind":"span_start","id":"${id}","parent_id":"m","name":"layer-${layer % 3}","start_ns":${clock},"span_kind":"function","measured":false,"step":"${steps[layer % 3]}"}`,
    );
    for (let op = 0; op < 3; op++) {
      const tensor = `t${layer}-${op}`;
      const shape = op === 0 ? "[32,32]" : "[8,16]";
      lines.push(
        `{"kind":"op","span_id":"${op === 2 ? child : id}","op_name":"${["matmul", "relu", "add"][op]}","shape":${shape},"dtype":"${op === 1 ? "f16" : "f32"}","device":"cuda:0","duration_ns":${100 + ((layer * 7 + op * 13) % 90)},"timestamp_ns":${clock + op}}`,
        `{"kind":"tensor","span_id":"${id}","tensor_id":"${tensor}","shape":${shape},"dtype":"f32","device":"cuda:0","requires_grad":${op === 0},"category":"activation"}`,
        `{"kind":"memory","timestamp_ns":${clock + op + (op === 1 ? 3 : 0)},"tensor_id":"${tensor}","span_id":"${id}","device":"cuda:0","bytes":${1024 * (op + 1)},"shape":${shape},"dtype":"f32","action":"alloc","category":"${op === 2 ? "gradient" : "activation"}"}`,
      );
      if ((layer + op) % 2 === 0) {
        lines.push(
          `{"kind":"memory","timestamp_ns":${clock + op + 2},"tensor_id":"${tensor}","span_id":"${id}","device":"cuda:0","bytes":${1024 * (op + 1)},"shape":${shape},"dtype":"f32","action":"free","category":"activation"}`,
        );
      }
    }
    lines.push(
      `{"kind":"gradient","event_id":"g${layer}","root":"vb","key":"w${layer % 50}","state":"${layer % 11 === 0 ? "zero" : "present"}","norm":${(layer % 13) / 10}}`,
      `{"kind":"edge","from_span":"${id}","to_span":"${child}","duration_ns":${layer}}`,
      `{"kind":"span_end","id":"${child}","duration_ns":5}`,
      `{"kind":"span_end","id":"${id}","duration_ns":${200 + (layer % 17)}}`,
    );
    clock += 300;
  }
  lines.push(
    `{"kind":"span_end","id":"m","duration_ns":${clock}}`,
    `{"kind":"span_end","id":"root","duration_ns":${clock + 10}}`,
  );
  writeFileSync(path, `${lines.join("\n")}\n`);
}

/** The document result cut the way the text view cuts it. */
function asTextView(result: QueryResult): { result: QueryResult; notes: string[] } {
  const notes: string[] = [];
  const first = <T>(rows: T[], name: string): T[] => {
    if (rows.length > TEXT_ROWS) {
      notes.push(`${name}: the first ${TEXT_ROWS} of ${rows.length} shown; --json lists every one`);
    }
    return rows.slice(0, TEXT_ROWS);
  };
  switch (result.kind) {
    case "memory": {
      const step = Math.max(1, Math.ceil(result.timeline.length / TEXT_ROWS));
      const timeline = result.timeline.filter((_point, index) => index % step === 0);
      if (step > 1) {
        notes.push(
          `timeline: every ${step}th of ${result.timeline.length} points shown (${timeline.length} rows, evenly sampled); --json lists every point`,
        );
      }
      return { result: { ...result, timeline }, notes };
    }
    case "spans": {
      const spans = first(result.spans, "spans");
      return { result: { ...result, spans, edges: first(result.edges, "edges") }, notes };
    }
    case "tensors":
      return { result: { ...result, tensors: first(result.tensors, "tensors") }, notes };
    case "gradients":
      return { result: { ...result, gradients: first(result.gradients, "gradients") }, notes };
    default:
      return { result, notes };
  }
}

describe("the built binary streams every kind", () => {
  let folder: string;
  let generated: string;
  beforeAll(() => {
    ensureBuilt();
    folder = mkdtempSync(join(tmpdir(), "cg-query-stream-"));
    generated = join(folder, "generated.jsonl");
    generatedTrace(generated, 3400);
  }, 300_000);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it.each(["valid/golden-train.jsonl", "valid/edges.jsonl"])(
    "prints the document's result for %s",
    async (file) => {
      const path = join(fixturesDir, file);
      const document = (await parseTrace(path)) as TraceDocument;
      for (const kind of KINDS) {
        const run = runBinary(["query", path, "--kind", kind, "--limit", "3", "--json"]);
        expect(run.status, run.stderr).toBe(0);
        expect(run.stdout).toBe(documentOutput(document, kind, 3, true));
      }
    },
  );

  it("prints the document's result for a generated trace longer than the text view", async () => {
    const document = await parseTrace(generated);
    expect(document.tensors.length).toBeGreaterThan(TEXT_ROWS);
    expect(document.memory.length).toBeGreaterThan(TEXT_ROWS);
    for (const kind of KINDS) {
      // Text: the sampled timeline and a cut list (the other text views are checked on the fixtures).
      const views = kind === "memory" || kind === "tensors" ? [true, false] : [true];
      for (const json of views) {
        const run = runBinary(["query", generated, "--kind", kind, ...(json ? ["--json"] : [])]);
        expect(run.status, run.stderr).toBe(0);
        expect(run.stdout).toBe(documentOutput(document, kind, 50, json, [], asTextView));
      }
    }
    const grouped = runBinary(["query", generated, "--kind", "ops", "--group-by", "path,dtype", "--json"]);
    expect(grouped.stdout).toBe(documentOutput(document, "ops", 50, true, ["path", "dtype"]));
    const golden = join(fixturesDir, "valid/golden-train.jsonl");
    const compared = runBinary(["compare", golden, generated, "--group-by", "path", "--json", "--force"]);
    expect(compared.status, compared.stderr).toBe(0);
    const expected = compareTraces(await parseTrace(golden), document, { operatorGroupBy: ["path"] });
    expect(compared.stdout).toBe(`${stringifyJson(expected)}\n`);
  }, 300_000);
});
