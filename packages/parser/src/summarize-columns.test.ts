// summarizeColumns against summarizeStream (the event path): on every fixture, both modes, with
// and without rankings and a per-event consumer, over small batches and odd chunkings, the same
// figures, the same events seen, the same diagnostics and the same error.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TraceEvent } from "@cg/schema";
import { fixturesDir } from "@cg/tooling-vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type StreamSummaryOptions, summarizeColumns, summarizeStream } from "./index.js";
import type { TraceSource } from "./trace-source.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string }[];
};

interface Outcome {
  result: unknown;
  error: unknown;
  events: TraceEvent[];
  diagnostics: string[];
}

async function outcome(
  summarize: (source: TraceSource, options: StreamSummaryOptions) => Promise<unknown>,
  source: TraceSource,
  options: StreamSummaryOptions,
  withEvents: boolean,
): Promise<Outcome> {
  const seen: Outcome = { result: undefined, error: undefined, events: [], diagnostics: [] };
  try {
    seen.result = await summarize(source, {
      ...options,
      onDiagnostic: (error) => seen.diagnostics.push(`${error.code}@${error.line}: ${error.message}`),
      ...(withEvents ? { onEvent: (event: TraceEvent) => seen.events.push(event) } : {}),
    });
  } catch (error) {
    seen.error = String(error);
  }
  return seen;
}

const variants = [
  { rankLimit: undefined, withEvents: false },
  // Ranked from the op columns (no op events asked for): an event object only for an op that ranks.
  { rankLimit: 1, withEvents: false },
  { rankLimit: 3, withEvents: false },
  { rankLimit: 3, withEvents: true },
  { rankLimit: undefined, withEvents: true },
];

describe("summarizeColumns", () => {
  it.each(manifest.fixtures.map((entry) => [entry.file] as const))(
    "gives summarizeStream's figures, events and error for %s",
    async (file) => {
      const path = join(fixturesDir, file);
      for (const mode of ["strict", "lenient"] as const) {
        for (const { rankLimit, withEvents } of variants) {
          const options: StreamSummaryOptions = { mode, ...(rankLimit === undefined ? {} : { rankLimit }) };
          const expected = await outcome(summarizeStream, path, options, withEvents);
          for (const batchSize of [2, 8192]) {
            const columns = await outcome(
              (source, given) => summarizeColumns(source, { ...given, batchSize }),
              path,
              options,
              withEvents,
            );
            expect(columns).toEqual(expected);
          }
          if (withEvents) {
            // Only the kinds asked for reach onEvent; the figures stay the same.
            const eventKinds = ["span_end", "op", "gradient"] as const;
            const chosen = await outcome(
              (source, given) => summarizeColumns(source, { ...given, eventKinds }),
              path,
              options,
              true,
            );
            expect(chosen).toEqual({
              ...expected,
              events: expected.events.filter((event) =>
                (eventKinds as readonly string[]).includes(event.kind),
              ),
            });
          }
        }
      }
    },
  );

  it("gives the same figures over any chunking and reorder window", async () => {
    const files = manifest.fixtures.map((entry) => readFileSync(join(fixturesDir, entry.file)));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: files.length - 1 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 4 }),
        async (which, batchSize, cut, reorderWindow) => {
          const bytes = files[which] as Buffer;
          const chunks: Uint8Array[] = [];
          for (let at = 0; at < bytes.length; at += cut) chunks.push(bytes.subarray(at, at + cut));
          const options: StreamSummaryOptions = { mode: "lenient", reorderWindow, file: "f" };
          const expected = await outcome(summarizeStream, [bytes], options, false);
          const columns = await outcome(
            (source, given) => summarizeColumns(source, { ...given, batchSize }),
            chunks,
            options,
            false,
          );
          expect(columns).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("waits for the promise onBatch returns before reading on, and closes the source when onBatch throws", async () => {
    const bytes = readFileSync(join(fixturesDir, (manifest.fixtures[0] as { file: string }).file));
    const lines = bytes.toString("utf8").trimEnd().split("\n");
    let pulled = 0;
    let closed = false;
    // A source that counts the chunks taken and sees its closing.
    const source = (): AsyncIterable<Uint8Array> => ({
      async *[Symbol.asyncIterator]() {
        try {
          for (const line of lines) {
            pulled++;
            yield new TextEncoder().encode(`${line}\n`);
          }
        } finally {
          closed = true;
        }
      },
    });
    const log: string[] = [];
    await summarizeColumns(source(), {
      batchSize: 1,
      onBatch: async () => {
        log.push(`batch ${pulled}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        log.push(`resumed ${pulled}`);
      },
    });
    // Each batch's hold ended before another chunk was taken.
    for (let at = 0; at + 1 < log.length; at += 2) {
      expect(log[at + 1]?.replace("resumed", "batch")).toBe(log[at]);
    }
    expect(log.length).toBeGreaterThan(4);
    expect(closed).toBe(true);

    pulled = 0;
    closed = false;
    const stop = new Error("stop");
    await expect(
      summarizeColumns(source(), {
        batchSize: 1,
        onBatch: () => {
          throw stop;
        },
      }),
    ).rejects.toBe(stop);
    expect(closed).toBe(true);
    expect(pulled).toBeLessThan(lines.length);
  });
});
