// The streamed comparison against the whole-document one, on every shared fixture that parses.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TraceEvent } from "@cg/schema/core";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { streamedSide } from "./compare-stream.js";
import {
  compareTraceFiles,
  compareTraces,
  documentSide,
  type OperatorGroupField,
  operatorTable,
  parseTrace,
  streamedSideAndSummary,
  summarizeStream,
  type TraceDocument,
} from "./index.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string; expect: string }[];
};
const parsed: { path: string; document: TraceDocument }[] = [];
for (const entry of manifest.fixtures) {
  if (entry.expect === "parse_error") continue;
  const path = join(fixturesDir, entry.file);
  try {
    parsed.push({ path, document: await parseTrace(path) });
  } catch {
    // refused fixtures are the reader's tests
  }
}

const GROUPINGS: OperatorGroupField[][] = [[], ["path"], ["shape", "dtype", "device", "path"]];

describe("compareTraceFiles equals compareTraces", () => {
  it.each(parsed.map(({ path }, index) => [path.slice(fixturesDir.length + 1), index] as const))(
    "the side of %s",
    async (_file, index) => {
      const { path, document } = parsed[index] as (typeof parsed)[number];
      for (const operatorGroupBy of GROUPINGS) {
        for (const compat of ["union", "reference"] as const) {
          expect(await streamedSide(() => path, { operatorGroupBy, compat })).toStrictEqual(
            documentSide(document, { operatorGroupBy, compat }),
          );
        }
      }
    },
  );

  it.each(parsed.map(({ path }, index) => [path.slice(fixturesDir.length + 1), index] as const))(
    "the side and summary of %s, from one read",
    async (_file, index) => {
      const { path, document } = parsed[index] as (typeof parsed)[number];
      // Ops asked as events too: the side must still count each op once.
      const seen: TraceEvent["kind"][] = [];
      const { side, summary } = await streamedSideAndSummary(() => path, {
        percentiles: true,
        eventKinds: ["op", "gradient"],
        onEvent: (event) => seen.push(event.kind),
      });
      expect(side).toStrictEqual({ ...documentSide(document), operators: operatorTable(document) });
      const { spanCosts, ...figures } = summary;
      expect(figures).toStrictEqual(await summarizeStream(path));
      expect(spanCosts?.size).toBe(document.spans.length);
      expect(seen.filter((kind) => kind === "op")).toHaveLength(document.ops.length);
      expect(seen.filter((kind) => kind === "gradient")).toHaveLength(document.gradients.length);
      expect(seen.length).toBe(document.ops.length + document.gradients.length);
    },
  );

  it("compares every fixture with the next, grouped and not", async () => {
    expect(parsed.length).toBeGreaterThan(5);
    for (let index = 0; index < parsed.length; index++) {
      const baseline = parsed[index] as (typeof parsed)[number];
      const candidate = parsed[(index + 1) % parsed.length] as (typeof parsed)[number];
      for (const operatorGroupBy of GROUPINGS) {
        const options = { operatorGroupBy, operatorLimit: 3, spanLimit: 4, gradientLimit: 2 };
        expect(
          await compareTraceFiles(
            () => baseline.path,
            () => candidate.path,
            options,
          ),
        ).toStrictEqual(compareTraces(baseline.document, candidate.document, options));
      }
    }
  });
});
