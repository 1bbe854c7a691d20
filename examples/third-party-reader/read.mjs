// A reader written the way a third party would: only the published @cg/schema package, its line
// decoder and trimming rule. Usage: node read.mjs [trace.jsonl]
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { decodeTraceLine, EVENT_KINDS, trimTraceLine } from "@cg/schema";

const path =
  process.argv[2] ??
  fileURLToPath(new URL("../../fixtures/trace6/valid/golden-train.jsonl", import.meta.url));

// `fatal` rejects invalid UTF-8 and `ignoreBOM` keeps a BOM, so it fails on line 1 (spec §4.1).
const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(readFileSync(path));
const lines = text.split("\n");
if (lines.at(-1) === "") lines.pop();

const counts = Object.fromEntries(EVENT_KINDS.map((kind) => [kind, 0]));
let entrypoint;
for (const [index, raw] of lines.entries()) {
  // A CR right before the LF belongs to the line terminator (spec §4.2).
  const line = trimTraceLine(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
  if (line === "") continue;
  const result = decodeTraceLine(line);
  if (!result.ok) {
    console.error(`parse trace JSONL line ${index + 1} from ${path}: ${result.error.message}`);
    process.exit(1);
  }
  counts[result.event.kind] += 1;
  if (result.event.kind === "meta") entrypoint = result.event.entrypoint;
}

console.log(`entrypoint ${entrypoint ?? "(none)"}`);
for (const kind of EVENT_KINDS) console.log(`${kind} ${counts[kind]}`);
