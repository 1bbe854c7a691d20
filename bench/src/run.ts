// Runs every `*.bench.ts` in this folder (or those whose name contains an argument):
//   pnpm bench            all benchmarks
//   pnpm bench writer     only files whose name contains "writer"
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { results } from "./harness.js";
import { removeSharedTraces } from "./support/writer-shaped-trace.js";

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((file) => file.endsWith(".bench.ts"))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

try {
  for (const file of files) {
    console.log(`\n== ${file.replace(/\.bench\.ts$/, "")} ==`);
    const module = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<void> };
    await module.default();
  }
} finally {
  removeSharedTraces();
}

const missed = results.filter((result) => result.met === false);
console.log(`\n${results.length} comparisons, ${missed.length} below target`);
