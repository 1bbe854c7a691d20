import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { parseTrace, parseTraceText, TraceParseError } from "./index.js";

interface ManifestEntry {
  file: string;
  expect: "valid" | "parse_error" | "health";
  stage?: "line" | "stream";
  line?: number | null;
  event_index?: number | null;
  error_contains?: string;
  counts?: Record<string, number>;
  resolved?: {
    op_storage_bytes: string[];
    tensor_storage_bytes: string[];
    gradient_norms: (string | null)[];
  };
  meta?: { measured_region_device_synchronized: boolean; candle_version: string | null; tag_keys: string[] };
}

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: ManifestEntry[];
};
const accepted = manifest.fixtures.filter((entry) => entry.expect !== "parse_error");
const rejected = manifest.fixtures.filter((entry) => entry.expect === "parse_error");

describe("fixtures that must be accepted", () => {
  it.each(accepted.map((entry) => [entry.file, entry] as const))("%s", async (file, entry) => {
    const path = join(fixturesDir, file);
    const document = await parseTrace(path);
    const counts = entry.counts ?? {};
    expect({
      spans: document.spans.length,
      ops: document.ops.length,
      tensors: document.tensors.length,
      memory: document.memory.length,
      device_memory: document.device_memory.length,
      gradients: document.gradients.length,
      edges: document.edges.length,
    }).toEqual(counts);
    if (entry.resolved !== undefined) {
      expect(document.ops.map((op) => String(op.storage_bytes))).toEqual(entry.resolved.op_storage_bytes);
      expect(document.tensors.map((tensor) => String(tensor.storage_bytes))).toEqual(
        entry.resolved.tensor_storage_bytes,
      );
      expect(document.gradients.map((gradient) => gradient.norm)).toEqual(
        entry.resolved.gradient_norms.map((text) => (text === null ? undefined : Number(text))),
      );
    }
    if (entry.meta !== undefined) {
      expect(document.run.measured_region_device_synchronized).toBe(
        entry.meta.measured_region_device_synchronized,
      );
      expect(document.run.candle_version ?? null).toBe(entry.meta.candle_version);
      expect(Object.keys(document.run.tags).sort()).toEqual([...entry.meta.tag_keys].sort());
    }
    // The same bytes through the synchronous path give the same document.
    expect(parseTraceText(readFileSync(path))).toEqual(document);
  });
});

describe("fixtures that must be rejected", () => {
  it.each(rejected.map((entry) => [entry.file, entry] as const))("%s", async (file, entry) => {
    const path = join(fixturesDir, file);
    const error = await parseTrace(path).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(TraceParseError.isInstance(error)).toBe(true);
    const parseError = error as TraceParseError;
    expect(parseError.stage).toBe(entry.stage);
    expect(parseError.line ?? null).toBe(entry.line);
    if (entry.stage === "stream") expect(parseError.index ?? null).toBe(entry.event_index);
    expect(parseError.message).toContain(entry.error_contains);
    expect(parseError.file).toBe(path);
    if (entry.stage === "line")
      expect(parseError.message).toContain(`parse trace JSONL line ${entry.line} from ${path}`);
  });
});
