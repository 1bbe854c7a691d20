// Writes trace6.schema.json at the package root (the committed source of truth), formatted like
// every other JSON file of the repository.
//   tsx scripts/generate-json-schema.ts          regenerate
//   tsx scripts/generate-json-schema.ts --check  fail when the committed file is out of date
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderTraceJsonSchema } from "./trace-json-schema.js";

const target = fileURLToPath(new URL("../trace6.schema.json", import.meta.url));
const text = renderTraceJsonSchema();
if (process.argv.includes("--check")) {
  // Compare meaning, not layout (the repository formatter owns the layout); the u64 maximum is
  // compared as text because JSON.parse rounds it.
  const committed = readFileSync(target, "utf8");
  const same =
    JSON.stringify(JSON.parse(committed)) === JSON.stringify(JSON.parse(text)) &&
    committed.includes("18446744073709551615");
  if (!same) {
    console.error("trace6.schema.json is out of date; run: pnpm --filter @cg/schema generate:json-schema");
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  execFileSync("pnpm", ["exec", "biome", "format", "--write", target], { stdio: "inherit" });
}
