// The trace/6 conformance fixtures of the repository: <repo>/fixtures/trace6.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const fixturesDir = fileURLToPath(new URL("../../../fixtures/trace6", import.meta.url));

export interface ManifestEntry {
  file: string;
  expect: "valid" | "parse_error" | "health";
  stage?: "line" | "stream";
  line?: number | null;
  error_contains?: string;
  counts?: Record<string, number>;
  resolved?: { gradient_norms: (string | null)[] };
  meta?: { measured_region_device_synchronized: boolean; candle_version: string | null; tag_keys: string[] };
  canonical_lines?: boolean;
}

export function readManifest(): ManifestEntry[] {
  return (
    JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as { fixtures: ManifestEntry[] }
  ).fixtures;
}

/** Physical lines per spec §4.2: split on LF; a CR right before the LF belongs to the terminator. */
export function physicalLines(file: string): string[] {
  const text = readFileSync(join(fixturesDir, file), "utf8");
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}
