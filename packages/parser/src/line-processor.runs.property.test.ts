// The processor commits runs of lines decoded from bytes together (ColumnLineReader.run), checking
// span starts and ends inside a run. Against the same lines given as text, which the text tiers
// (JSON.parse) read one by one: the same events, line numbers, record indexes, diagnostics and final error, for traces with
// refused span lines, lines only the text tiers read, over-long lines, blank lines, any batch size,
// any cut into pieces, both modes and any choice of kinds.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ColumnBatch, EVENT_KINDS, type EventKind, type TraceEvent } from "@cg/schema";
import { ColumnBatch as Batch } from "@cg/schema/core";
import { fixturesDir } from "@cg/tooling-vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineProcessor, type ReadOptions } from "./line-processor.js";
import type { LinePiece } from "./line-splitter.js";

const golden = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"), "utf8").trimEnd().split("\n");
const spanStarts = golden.filter((line) => line.startsWith('{"kind":"span_start"'));
const spanEnds = golden.filter((line) => line.startsWith('{"kind":"span_end"'));

/** Lines to put among the golden trace's: ordering defects, and forms only the text tiers read. */
const INSERTS: ((line: string) => string)[] = [
  () => spanStarts[0] as string, // a duplicate span start
  () => spanEnds[0] as string, // a duplicate span end, or an end before its start
  () => '{"kind":"span_end","id":"nowhere","duration_ns":1}', // an unknown span
  (line) => line.replace(/,"/, ', "'), // white space: the text tiers
  (line) => line.replace(/}$/, ',"extra":1}'), // an unknown key
  (line) => `${line}\r`,
  () => "",
  (line) => line.replace(/"[a-z]+_id":"/, "$&\\u0041"), // an escape
];

interface Outcome {
  records: [TraceEvent, number, number][];
  diagnostics: string[];
  error: string;
}

/** Drives `processor` over `pieces` as a reader does: drain up to `batchSize`, take, again; finish. */
function drive(processor: LineProcessor, pieces: LinePiece[], batchSize: number, take: () => void): string {
  try {
    processor.enqueue(pieces);
    while (processor.drain(batchSize)) take();
    take();
    processor.finish();
    take();
    return "";
  } catch (error) {
    take();
    return String(error);
  }
}

function read(
  bytes: Uint8Array,
  cuts: readonly number[],
  batchSize: number,
  options: ReadOptions,
  source: "bytes" | "text",
): Outcome {
  const outcome: Outcome = { records: [], diagnostics: [], error: "" };
  const withDiagnostics: ReadOptions = {
    ...options,
    onDiagnostic: (error) => outcome.diagnostics.push(`${error.code}@${error.line}: ${error.message}`),
  };
  // Pieces end at line ends (as the file reader cuts them); the trace ends with its LF.
  const pieces: LinePiece[] = [];
  const decoder = new TextDecoder();
  let start = 0;
  for (let at = 0; start < bytes.length; at++) {
    let end = bytes.indexOf(10, Math.min(bytes.length - 1, start + (cuts[at % cuts.length] as number)));
    if (end < 0) end = bytes.length - 1;
    const slice = bytes.slice(start, end + 1);
    pieces.push(
      source === "bytes"
        ? { type: "bytes", bytes: slice, unterminated: false }
        : { type: "text", text: decoder.decode(slice), unterminated: false },
    );
    start = end + 1;
  }
  const batch: ColumnBatch = new Batch();
  const processor = new LineProcessor("f", withDiagnostics, batch);
  outcome.error = drive(processor, pieces, batchSize, () => {
    for (let at = 0; at < batch.size; at++) {
      outcome.records.push([batch.event(at), batch.lines[at] as number, batch.indexes[at] as number]);
    }
    batch.clear();
  });
  return outcome;
}

describe("the column processor's runs", () => {
  it("read as the text tiers read the same lines one by one", () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: golden.length - 1 }), fc.nat(INSERTS.length - 1)), {
          maxLength: 6,
        }),
        fc.array(fc.integer({ min: 1, max: 4000 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 300 }),
        fc.constantFrom("strict" as const, "lenient" as const),
        fc.option(fc.subarray(EVENT_KINDS.filter((kind) => kind !== "meta") as EventKind[]), {
          nil: undefined,
        }),
        fc.option(fc.integer({ min: 120, max: 400 }), { nil: undefined }),
        (inserts, cuts, batchSize, mode, kinds, maxLineLength) => {
          const lines = golden.slice();
          for (const [at, insert] of inserts) {
            lines.splice(at, 0, (INSERTS[insert] as (line: string) => string)(lines[at] as string));
          }
          const bytes = encoder.encode(`${lines.join("\n")}\n`);
          const options: ReadOptions = {
            mode,
            ...(kinds === undefined ? {} : { kinds }),
            ...(maxLineLength === undefined ? {} : { maxLineLength }),
          };
          const expected = read(bytes, cuts, batchSize, options, "text");
          const actual = read(bytes, cuts, batchSize, options, "bytes");
          expect(actual.records).toEqual(expected.records);
          expect(actual.diagnostics).toEqual(expected.diagnostics);
          expect(actual.error).toBe(expected.error);
        },
      ),
      { numRuns: 300 },
    );
  });
});
