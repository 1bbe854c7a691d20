// checkColumns against summarizeColumns: a check computes no memory timeline and no rankings, but
// its health (the allocation pairing included), notes, `exact`, lines, events, diagnostics and
// error must be the summary's, on every fixture, in both modes, over any chunking and window.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkColumns, type StreamSummaryOptions, summarizeColumns } from "./index.js";
import type { TraceSource } from "./trace-source.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string }[];
};

interface Outcome {
  result: unknown;
  error: unknown;
  diagnostics: string[];
}

async function outcome(
  read: (source: TraceSource, options: StreamSummaryOptions) => Promise<object>,
  source: TraceSource,
  options: StreamSummaryOptions,
): Promise<Outcome> {
  const seen: Outcome = { result: undefined, error: undefined, diagnostics: [] };
  try {
    const { schema, run, health, exact, notes, lines, events } = (await read(source, {
      ...options,
      onDiagnostic: (error) => seen.diagnostics.push(`${error.code}@${error.line}: ${error.message}`),
    })) as Record<string, unknown>;
    seen.result = { schema, run, health, exact, notes, lines, events };
  } catch (error) {
    seen.error = String(error);
  }
  return seen;
}

describe("checkColumns", () => {
  it.each(manifest.fixtures.map((entry) => [entry.file] as const))(
    "gives summarizeColumns' health, notes and error for %s, and nothing else",
    async (file) => {
      const path = join(fixturesDir, file);
      for (const mode of ["strict", "lenient"] as const) {
        const expected = await outcome(summarizeColumns, path, { mode });
        const checked = await outcome(checkColumns, path, { mode });
        expect(checked).toEqual(expected);
        if (expected.error === undefined) {
          const check = await checkColumns(path, { mode });
          expect(Object.keys(check).sort()).toEqual(
            ["events", "exact", "health", "lines", "notes", "run", "schema"].sort(),
          );
        }
      }
    },
  );

  it("gives the same health and notes over any chunking and reorder window", async () => {
    const files = manifest.fixtures.map((entry) => readFileSync(join(fixturesDir, entry.file)));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: files.length - 1 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 4 }),
        async (which, cut, reorderWindow) => {
          const bytes = files[which] as Buffer;
          const chunks: Uint8Array[] = [];
          for (let at = 0; at < bytes.length; at += cut) chunks.push(bytes.subarray(at, at + cut));
          const options: StreamSummaryOptions = { mode: "lenient", reorderWindow, file: "f" };
          const expected = await outcome(summarizeColumns, [bytes], options);
          expect(await outcome(checkColumns, chunks, options)).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
