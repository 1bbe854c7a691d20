// Open-ended inputs: every outcome must be a document or a TraceParseError — no other exception,
// no hang, no stack overflow. 100,000 inputs in total over several property runs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import fc from "fast-check";
import { describe, it } from "vitest";
import { analyzeHealth, parseTraceText, serializeDocument, summarize, TraceParseError } from "./index.js";

const golden = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"));
const goldenLines = golden.toString("utf8").trimEnd().split("\n");
const encoder = new TextEncoder();

function check(input: string | Uint8Array, lenient: boolean): void {
  let document: ReturnType<typeof parseTraceText>;
  try {
    document = parseTraceText(
      input,
      lenient ? { mode: "lenient", maxLineLength: 4096 } : { maxLineLength: 4096 },
    );
  } catch (error) {
    if (!TraceParseError.isInstance(error)) throw error;
    if (typeof error.code !== "string") throw new Error("error without a code");
    return;
  }
  // Accepted input must survive the analyses and a round trip.
  analyzeHealth(document);
  summarize(document);
  if (!lenient) {
    const text = serializeDocument(document);
    if (serializeDocument(parseTraceText(text)) !== text) throw new Error("round trip changed the document");
  }
}

const oddValues = [
  "null",
  "-1",
  "-0",
  "1.5",
  "5e3",
  '"10"',
  "18446744073709551615",
  "18446744073709551616",
  "9007199254740993",
  "1e400",
  "[]",
  "{}",
  "true",
  '"\\ud800"',
  '"Train"',
  "[1,[2]]",
  '{"__proto__":1}',
];

// A fixed amount of work per property (tens of thousands of inputs): on a loaded machine it can take
// longer than the default per-test limit without anything being wrong.
describe("fuzzing the reader", { timeout: 300_000 }, () => {
  it("random bytes (25,000)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 160 }), fc.boolean(), (bytes, lenient) => check(bytes, lenient)),
      { numRuns: 25_000 },
    );
  });

  it("byte mutations of the golden trace: flips, cuts, inserts (25,000)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.nat({ max: golden.length - 1 }),
            fc.integer({ min: 0, max: 255 }),
            fc.constantFrom(0, 1, 2, 3),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        fc.boolean(),
        (mutations, lenient) => {
          let bytes: Uint8Array = golden;
          for (const [position, value, operation] of mutations) {
            const at = Math.min(position, bytes.length);
            if (operation === 0) {
              bytes = bytes.slice();
              bytes[at] = value;
            } else if (operation === 1) {
              bytes = bytes.subarray(0, at);
            } else if (operation === 2) {
              const next = new Uint8Array(bytes.length + 1);
              next.set(bytes.subarray(0, at));
              next[at] = value;
              next.set(bytes.subarray(at), at + 1);
              bytes = next;
            } else {
              const rest = bytes.subarray(Math.min(bytes.length, at + value));
              const next = new Uint8Array(at + rest.length);
              next.set(bytes.subarray(0, at));
              next.set(rest, at);
              bytes = next;
            }
          }
          check(bytes, lenient);
        },
      ),
      { numRuns: 25_000 },
    );
  });

  it("field-value mutations of golden lines (30,000)", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: goldenLines.length - 1 }),
        fc.nat(),
        fc.constantFrom(...oddValues),
        fc.boolean(),
        (lineIndex, fieldSeed, value, lenient) => {
          const lines = [...goldenLines];
          const line = lines[lineIndex] as string;
          const keys = [...line.matchAll(/"([a-z_]+)":/g)];
          const match = keys[fieldSeed % keys.length];
          if (match?.index !== undefined) {
            const start = match.index + match[0].length;
            const record = JSON.parse(line) as Record<string, unknown>;
            const old = JSON.stringify(record[match[1] as string]);
            const end = line.indexOf(old ?? "", start) === start ? start + (old?.length ?? 0) : start;
            lines[lineIndex] = line.slice(0, start) + value + line.slice(end);
          }
          check(lines.join(lenient ? "\r\n" : "\n"), lenient);
        },
      ),
      { numRuns: 30_000 },
    );
  });

  it("line shuffles, duplicates and truncations (20,000)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: goldenLines.length - 1 }), { maxLength: 24 }),
        fc.nat({ max: 400 }),
        fc.boolean(),
        (order, cut, lenient) => {
          const text = order.map((index) => goldenLines[index]).join("\n");
          check(encoder.encode(text.slice(0, text.length - cut)), lenient);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it("survives deep nesting and huge literals", () => {
    const meta = goldenLines[0] as string;
    for (const nested of [
      "[".repeat(100_000),
      `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
      '{"kind":"op","x":'.repeat(50_000),
      `{"kind":"edge","from_span":"a","to_span":"b","duration_ns":1,"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
      `{"kind":"edge","from_span":"a","to_span":"b","duration_ns":${"9".repeat(100_000)}}`,
    ]) {
      check(`${meta}\n${nested}\n`, false);
      check(`${meta}\n${nested}\n`, true);
    }
  });
});
