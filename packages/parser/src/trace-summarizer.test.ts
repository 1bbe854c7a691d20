// The event-fed summarizer against summarizeStream (which drives the same implementation with the
// processor's own span ids): fed from either reader, it must give the same figures on every fixture.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import {
  createTraceSummarizer,
  readTraceBatches,
  readTraceEvents,
  type StreamSummary,
  summarizeStream,
} from "./index.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string; expect: string }[];
};
const files = manifest.fixtures.map((entry) => entry.file);

type Outcome = { summary: StreamSummary } | { error: string };

async function fedEventByEvent(path: string, mode: "strict" | "lenient"): Promise<Outcome> {
  const summarizer = createTraceSummarizer({ rankLimit: 3, file: path });
  try {
    for await (const { event, line, index } of readTraceEvents(path, { mode })) {
      summarizer.add(event, line, index);
    }
  } catch (error) {
    return { error: (error as Error).message };
  }
  return { summary: summarizer.finish() };
}

async function fedInBatches(path: string, mode: "strict" | "lenient"): Promise<Outcome> {
  const summarizer = createTraceSummarizer({ rankLimit: 3, file: path });
  try {
    for await (const batch of readTraceBatches(path, { mode, batchSize: 7 })) {
      for (const { event, line, index } of batch) summarizer.add(event, line, index);
    }
  } catch (error) {
    return { error: (error as Error).message };
  }
  return { summary: summarizer.finish() };
}

async function streamed(path: string, mode: "strict" | "lenient"): Promise<Outcome> {
  try {
    return { summary: await summarizeStream(path, { mode, rankLimit: 3 }) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** `lines` counts physical lines, trailing blank ones included, which events do not show. */
function withoutLines(outcome: Outcome): unknown {
  if ("error" in outcome) return outcome;
  const { lines: _lines, ...rest } = outcome.summary;
  return rest;
}

describe("createTraceSummarizer", () => {
  it.each(files.flatMap((file) => [[file, "strict"] as const, [file, "lenient"] as const]))(
    "fed event by event equals summarizeStream on %s (%s)",
    async (file, mode) => {
      const path = join(fixturesDir, file);
      const expected = await streamed(path, mode);
      const byEvent = await fedEventByEvent(path, mode);
      const inBatches = await fedInBatches(path, mode);
      expect(withoutLines(byEvent)).toEqual(withoutLines(expected));
      expect(withoutLines(inBatches)).toEqual(withoutLines(expected));
      if ("summary" in expected && "summary" in byEvent) {
        expect(byEvent.summary.lines).toBeLessThanOrEqual(expected.summary.lines);
      }
    },
  );

  it("takes the source's line count when given one", async () => {
    const text =
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}\n\n\n';
    const summarizer = createTraceSummarizer();
    for await (const { event, line, index } of readTraceEvents({ text })) summarizer.add(event, line, index);
    const summary = summarizer.finish(3);
    expect(summary.lines).toBe(3);
    expect(summary).toEqual(await summarizeStream({ text }));
  });

  it("says which file has no meta event", () => {
    const summarizer = createTraceSummarizer({ file: "events.jsonl" });
    summarizer.add({ kind: "gradient", event_id: "g", root: "r", key: "k", state: "present" });
    expect(() => summarizer.finish()).toThrow("trace summary of events.jsonl: no meta event");
  });

  it("stops at the span budget, naming the file and line", () => {
    const summarizer = createTraceSummarizer({ spanBudgetBytes: 1, file: "big.jsonl" });
    expect(() =>
      summarizer.add(
        { kind: "span_start", id: "s0", name: "root", start_ns: 0, span_kind: "function", measured: true },
        2,
        1,
      ),
    ).toThrow(/big\.jsonl has more than 1 spans.*over the span budget/);
  });
});
