// The two fixtures the reference itself produced for spec §2.1 (repeated unknown keys) and §11
// step 4 (a free on another device), through every reader entry point: the document (from a path,
// from text, from bytes), the streaming iterator, the streaming summary, and the built CLI's
// `validate` and `summary --json`, in strict and lenient mode.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { analyzeMemory } from "@cg/memory";
import { parseTrace, parseTraceText, readTraceEvents, summarize, summarizeStream } from "@cg/parser";
import { fixturesDir, repoRoot } from "@cg/tooling-vitest";
import { beforeAll, describe, expect, it } from "vitest";
import { bytes, jsonl, META, ROOT_END, ROOT_START } from "./helpers.ts";

interface ManifestEntry {
  file: string;
  expect: string;
  counts: Record<string, number>;
  summary: Record<string, number>;
  health: { trusted: boolean; errors: string[]; warnings: string[] };
  memory_analysis: Record<string, unknown> & { peak_by_category: Record<string, number> };
  memory_timeline_by_category?: Record<string, number>[];
}

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: ManifestEntry[];
};
const FILES = ["valid/repeated-unknown-keys.jsonl", "health/free-on-other-device-category.jsonl"];
const entries = FILES.map((file) => {
  const entry = manifest.fixtures.find((candidate) => candidate.file === file);
  if (entry === undefined) throw new Error(`${file} is missing from the manifest`);
  return entry;
});
const MODES = ["strict", "lenient"] as const;

const bin = join(repoRoot, "packages/cli/dist/bin.js");

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

beforeAll(() => {
  if (!existsSync(bin))
    execFileSync("pnpm", ["turbo", "run", "build", "--filter", "@cg/cli..."], {
      cwd: repoRoot,
      stdio: "ignore",
    });
});

describe.each(entries.map((entry) => [entry.file, entry] as const))("%s", (file, entry) => {
  const path = join(fixturesDir, file);
  const raw = readFileSync(path);

  it.each(MODES)("reads as a document from a path, text and bytes (%s)", async (mode) => {
    const diagnostics: unknown[] = [];
    const options = { mode, onDiagnostic: (diagnostic: unknown) => diagnostics.push(diagnostic) };
    for (const document of [
      await parseTrace(path, options),
      parseTraceText(raw.toString("utf8"), options),
      parseTraceText(new Uint8Array(raw), options),
    ]) {
      expect(document.spans).toHaveLength(entry.counts.spans as number);
      expect(document.ops).toHaveLength(entry.counts.ops as number);
      expect(document.memory).toHaveLength(entry.counts.memory as number);
      const { self_times: _selfTimes, ...summary } = summarize(document);
      expect(summary).toEqual(entry.summary);
      const memory = analyzeMemory({
        memory: document.memory,
        spans: document.spans,
        device_memory: document.device_memory,
      });
      expect(memory.peak_by_category).toEqual(entry.memory_analysis.peak_by_category);
      if (entry.memory_timeline_by_category !== undefined) {
        expect(memory.timeline.map((point) => point.by_category)).toEqual(entry.memory_timeline_by_category);
      }
    }
    expect(diagnostics).toEqual([]);
  });

  it.each(MODES)("streams every event (%s)", async (mode) => {
    const kinds: string[] = [];
    for await (const record of readTraceEvents(path, { mode })) kinds.push(record.event.kind);
    const expected = raw
      .toString("utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => (JSON.parse(line) as { kind: string }).kind);
    expect(kinds).toEqual(expected);
  });

  it.each(MODES)("gives the manifest's figures as a streaming summary (%s)", async (mode) => {
    const result = await summarizeStream(path, { mode });
    expect(result.exact).toBe(true);
    expect(result.summary).toEqual(entry.summary);
    expect(result.health.trusted).toBe(entry.health.trusted);
    expect(result.memory.peak_bytes).toBe(entry.memory_analysis.peak_bytes);
    expect(result.memory.peak_by_category).toEqual(entry.memory_analysis.peak_by_category);
  });

  it("passes `cg-trace validate` and `summary --json` with the manifest's verdict and figures", async () => {
    const validate = await cli("validate", path);
    expect(validate.code, validate.stderr).toBe(entry.health.trusted ? 0 : 1);
    const summary = await cli("summary", path, "--json");
    expect(summary.code, summary.stderr).toBe(0);
    const parsed = JSON.parse(summary.stdout) as {
      summary: Record<string, number>;
      health: { trusted: boolean };
      memory: { peak_by_category: Record<string, number>; peak_device: string };
    };
    expect(parsed.health.trusted).toBe(entry.health.trusted);
    for (const [key, value] of Object.entries(entry.summary)) expect(parsed.summary[key], key).toBe(value);
    expect(parsed.memory.peak_by_category).toEqual(entry.memory_analysis.peak_by_category);
    expect(parsed.memory.peak_device).toBe(entry.memory_analysis.peak_device);
  });
});

describe("repeated keys through the parser's byte path (spec §2.1)", () => {
  const lines = [
    '{"kind":"op","span_id":"s1","op_name":"a","x":1,"x":{"y":[null]},"dtype":"f32","device":"cpu","duration_ns":5}',
    '{"kind":"memory","timestamp_ns":1,"tensor_id":"t","span_id":"s1","device":"cpu","bytes":8,"action":"alloc","dtype":"u8","n":"a","n":"b"}',
  ];

  it.each(MODES)("accepts repeated unknown keys from bytes and text (%s)", (mode) => {
    const text = jsonl(META, ROOT_START, ...lines, ROOT_END);
    for (const source of [text, bytes(text)]) {
      const document = parseTraceText(source, { mode });
      expect(document.ops).toHaveLength(1);
      expect(document.memory).toHaveLength(1);
      expect(document.diagnostics ?? []).toEqual([]);
    }
  });

  it("rejects a repeated known key with the line and field in strict mode, skips it in lenient mode", () => {
    const bad =
      '{"kind":"op","span_id":"s1","op_name":"a","dtype":"f32","device":"cpu","duration_ns":5,"dtype":"f16"}';
    const text = jsonl(META, ROOT_START, bad, ROOT_END);
    expect(() => parseTraceText(bytes(text))).toThrow(/duplicate field `dtype`/);
    const diagnostics: { code: string; line?: number }[] = [];
    const document = parseTraceText(bytes(text), {
      mode: "lenient",
      onDiagnostic: (diagnostic) => diagnostics.push(diagnostic),
    });
    expect(document.ops).toHaveLength(0);
    expect(diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.line])).toEqual([
      ["duplicate_field", 3],
    ]);
  });

  it("rejects a tag value hidden by a repeated tag key", () => {
    const meta = META.replace('"tags":{}', '"tags":{"batch":128,"batch":"128"}');
    expect(() => parseTraceText(bytes(jsonl(meta, ROOT_START, ROOT_END)))).toThrow(
      /invalid type: integer `128`, expected a string at `meta\.tags\.batch`/,
    );
  });
});
