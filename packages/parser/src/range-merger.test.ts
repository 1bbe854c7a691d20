import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { TraceEvent } from "@cg/schema";
import { fixturesDir } from "@cg/tooling-vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeRange } from "./range-decoder.js";
import { RangeMerger } from "./range-merger.js";
import { type StreamSummaryOptions, summarizeStream } from "./summarize-stream.js";
import { TraceParseError } from "./trace-parse-error.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string }[];
};
const fixtures = manifest.fixtures.map((entry) => ({
  file: entry.file,
  bytes: new Uint8Array(readFileSync(join(fixturesDir, entry.file))),
}));

interface Outcome {
  result: unknown;
  error: unknown;
  diagnostics: TraceParseError[];
  events: TraceEvent[];
}

/** Where each line after the first starts. */
function lineStarts(bytes: Uint8Array): number[] {
  const starts: number[] = [];
  for (let at = bytes.indexOf(10); at >= 0 && at + 1 < bytes.length; at = bytes.indexOf(10, at + 1)) {
    starts.push(at + 1);
  }
  return starts;
}

type Variant = "references" | "ranked" | "events";

function optionsFor(variant: Variant, mode: "strict" | "lenient", outcome: Outcome): StreamSummaryOptions {
  const options: StreamSummaryOptions = {
    file: "trace.jsonl",
    mode,
    onDiagnostic: (diagnostic) => outcome.diagnostics.push(diagnostic),
  };
  if (variant === "ranked") options.rankLimit = 3;
  if (variant === "events") options.onEvent = (event) => outcome.events.push(event);
  return options;
}

async function sequential(bytes: Uint8Array, variant: Variant, mode: "strict" | "lenient"): Promise<Outcome> {
  const outcome: Outcome = { result: undefined, error: undefined, diagnostics: [], events: [] };
  try {
    outcome.result = await summarizeStream(bytes, optionsFor(variant, mode, outcome));
  } catch (error) {
    outcome.error = error;
  }
  return outcome;
}

/** The ranges cut at `cuts` (line starts), each decoded alone and cloned as a worker posts it. */
function inRanges(bytes: Uint8Array, cuts: number[], variant: Variant, mode: "strict" | "lenient"): Outcome {
  const outcome: Outcome = { result: undefined, error: undefined, diagnostics: [], events: [] };
  const bounds = [0, ...[...new Set(cuts)].sort((left, right) => left - right), bytes.length];
  try {
    const merger = new RangeMerger("trace.jsonl", optionsFor(variant, mode, outcome));
    for (let range = 0; range + 1 < bounds.length; range++) {
      const slice = bytes.subarray(bounds[range], bounds[range + 1]);
      const last = range + 2 === bounds.length;
      const decoded = decodeRange(slice, last, {});
      if (decoded.failed) merger.addBytes([slice], last);
      else merger.addDecoded(structuredClone(decoded));
    }
    outcome.result = merger.finish();
  } catch (error) {
    outcome.error = error;
  }
  return outcome;
}

function errorFacts(error: unknown) {
  if (!TraceParseError.isInstance(error)) return error;
  const { code, message, line, index, field, file, stage } = error;
  return { code, message, line, index, field, file, stage };
}

function expectSame(actual: Outcome, expected: Outcome): void {
  expect(errorFacts(actual.error)).toEqual(errorFacts(expected.error));
  expect(actual.diagnostics.map(errorFacts)).toEqual(expected.diagnostics.map(errorFacts));
  expect(actual.result).toEqual(expected.result);
  // Also prototypes (string maps are built without one).
  expect(isDeepStrictEqual(actual.result, expected.result)).toBe(true);
  expect(isDeepStrictEqual(actual.events, expected.events)).toBe(true);
}

describe("RangeMerger over ranges decoded apart", () => {
  it.each(fixtures.map((fixture) => [fixture.file, fixture] as const))(
    "equals summarizeStream for %s at every line boundary, strict and lenient",
    async (_file, { bytes }) => {
      const starts = lineStarts(bytes);
      for (const mode of ["strict", "lenient"] as const) {
        for (const variant of ["references", "ranked", "events"] as const) {
          const expected = await sequential(bytes, variant, mode);
          // One range per line: every boundary at once.
          expectSame(inRanges(bytes, starts, variant, mode), expected);
          expectSame(inRanges(bytes, [], variant, mode), expected);
        }
      }
    },
  );

  it("equals summarizeStream for random cuts of random fixtures", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: fixtures.length - 1 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom("strict" as const, "lenient" as const),
        fc.constantFrom("references" as const, "ranked" as const, "events" as const),
        async (which, picks, mode, variant) => {
          const { bytes } = fixtures[which] as (typeof fixtures)[number];
          const starts = lineStarts(bytes);
          const cuts = starts.length === 0 ? [] : picks.map((pick) => starts[pick % starts.length] as number);
          expectSame(inRanges(bytes, cuts, variant, mode), await sequential(bytes, variant, mode));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("numbers lines after blank lines and a missing final line feed like a sequential read", async () => {
    const golden = fixtures.find((fixture) => fixture.file === "valid/golden-train.jsonl")
      ?.bytes as Uint8Array;
    const text = new TextDecoder().decode(golden).replace(/\n/g, "\n\n").trimEnd();
    // An undecodable line late in the file: its line number must count every line before it.
    const broken = new TextEncoder().encode(`${text}\n{"kind":"op"}\n`);
    for (const bytes of [new TextEncoder().encode(text), broken]) {
      const starts = lineStarts(bytes);
      for (const mode of ["strict", "lenient"] as const) {
        const expected = await sequential(bytes, "references", mode);
        expectSame(
          inRanges(
            bytes,
            starts.filter((_, at) => at % 3 === 0),
            "references",
            mode,
          ),
          expected,
        );
      }
    }
    const strict = await sequential(broken, "references", "strict");
    expect((strict.error as TraceParseError).line).toBeGreaterThan(lineStarts(golden).length * 2);
  });
});
