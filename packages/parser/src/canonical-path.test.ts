// Byte sources take the canonical path (readCanonicalLine, then a per-line or per-run fall back to
// the text tiers); text sources never do. Whatever the mix of lines and however the bytes are
// chunked, both must report the same events, line numbers, indexes and diagnostics.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fixturesDir } from "@cg/tooling-vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readTraceEvents, type TraceEventRecord } from "./index.js";
import type { TraceParseError } from "./trace-parse-error.js";

const goldenLines = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"), "utf8").trimEnd().split("\n");
const [metaLine, ...eventLines] = goldenLines as [string, ...string[]];

/** One physical line as bytes and as the text a text source would hold for it. */
interface Line {
  bytes: number[];
  text: string;
}

const ascii = (text: string): Line => ({ bytes: Array.from(Buffer.from(text, "utf8")), text });

const line: fc.Arbitrary<Line> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...eventLines).map(ascii) }, // canonical
  {
    weight: 2,
    arbitrary: fc.constantFrom(...eventLines).map((event) => ascii(event.replace(/,"/g, ', "'))),
  }, // valid, not canonical
  { weight: 1, arbitrary: fc.constantFrom("", "   ", "\t").map(ascii) }, // blank
  { weight: 1, arbitrary: fc.constantFrom('{"kind":"op"', "not json", "{}", "[1]").map(ascii) }, // invalid
  { weight: 1, arbitrary: fc.constant(ascii(`{"kind":"gradient","event_id":"${"x".repeat(1200)}"}`)) }, // too long
  {
    weight: 1,
    // Invalid UTF-8 in bytes; the text source holds a lone surrogate there, invalid in the same way.
    arbitrary: fc.constantFrom(...eventLines).map((event) => {
      const cut = event.indexOf('"', 10) + 1;
      return {
        bytes: [...Buffer.from(event.slice(0, cut)), 0xff, ...Buffer.from(event.slice(cut))],
        text: `${event.slice(0, cut)}\ud800${event.slice(cut)}`,
      };
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom(...eventLines).map((event) => ascii(`${event}\r`)) }, // CRLF
);

/** Runs of many non-canonical lines, which switch the byte path to decoding the run as text. */
const run = fc.oneof(
  { weight: 4, arbitrary: line.map((one) => [one]) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 8, max: 14 })
      .map((count) =>
        Array.from({ length: count }, (_, index) =>
          ascii((eventLines[index % eventLines.length] as string).replace(/,"/g, ', "')),
        ),
      ),
  },
);

interface Outcome {
  records: TraceEventRecord[];
  diagnostics: Pick<TraceParseError, "code" | "line" | "index" | "message">[];
  error?: Pick<TraceParseError, "code" | "line" | "index" | "message">;
}

/**
 * What must agree. A line over the limit reports as much of it as the reader held when it gave
 * up ("at least N"), which depends on the chunking, so that number is left out.
 */
function comparable({ code, line, index, message }: TraceParseError) {
  return { code, line, index, message: message.replace(/\(at least \d+\)/, "(at least …)") };
}

async function read(
  source: Parameters<typeof readTraceEvents>[0],
  mode: "strict" | "lenient",
): Promise<Outcome> {
  const outcome: Outcome = { records: [], diagnostics: [] };
  const options = {
    mode,
    file: "trace.jsonl",
    maxLineLength: 1000,
    onDiagnostic: (diagnostic: TraceParseError) => outcome.diagnostics.push(comparable(diagnostic)),
  };
  try {
    for await (const record of readTraceEvents(source, options)) outcome.records.push(record);
  } catch (error) {
    outcome.error = comparable(error as TraceParseError);
  }
  return outcome;
}

/** Cuts bytes into chunks at the given sizes (cycled). */
function chunked(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let offset = 0, turn = 0; offset < bytes.length; turn++) {
    const size = sizes[turn % sizes.length] as number;
    chunks.push(bytes.slice(offset, offset + size));
    offset += size;
  }
  return chunks;
}

describe("the canonical byte path", () => {
  it("reads mixed lines exactly as the text path does, however the bytes are chunked", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(run, { maxLength: 30 }).map((runs) => runs.flat()),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom<"strict" | "lenient">("strict", "lenient"),
        async (lines, finalLineFeed, sizes, mode) => {
          const all = [ascii(metaLine), ...lines];
          const ending = finalLineFeed ? "\n" : "";
          const text = all.map((one) => one.text).join("\n") + ending;
          const bytes = Uint8Array.from([
            ...all.flatMap((one, index) => (index === 0 ? one.bytes : [0x0a, ...one.bytes])),
            ...(finalLineFeed ? [0x0a] : []),
          ]);
          const expected = await read({ text }, mode);
          expect(await read(bytes, mode)).toEqual(expected);
          expect(await read(Readable.from(chunked(bytes, sizes)), mode)).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("decodes a canonical file without falling back, and a non-canonical one the same", async () => {
    const canonical = `${goldenLines.join("\n")}\n`;
    const spaced = `${goldenLines.map((one) => one.replace(/,"/g, ', "')).join("\n")}\n`;
    const fromCanonical = await read(Buffer.from(canonical), "strict");
    const fromSpaced = await read(Buffer.from(spaced), "strict");
    expect(fromCanonical.error).toBeUndefined();
    expect(fromCanonical.records.length).toBe(goldenLines.length);
    expect(fromSpaced).toEqual(fromCanonical);
  });
});
