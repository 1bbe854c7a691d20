// The conformance fixtures are data with a manifest: every fixture file has one entry, and each entry
// carries the SHA-256 of the file's bytes. `pnpm fixtures:check` says which fixture differs from its
// manifest (a changed, missing or unlisted file); `pnpm fixtures:update` writes the digests of the
// files as they are now, after a deliberate change to a fixture. Usage:
//   node scripts/fixture-digests.mjs [--update] [fixtures folder]
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(fileURLToPath(new URL("..", import.meta.url)));

/** The repository's trace/6 fixtures folder. */
export const defaultFixturesDir = join(repoRoot, "fixtures", "trace6");

const MANIFEST = "manifest.json";

function sha256(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Every `.jsonl` file under `dir`, as a manifest path (`/`-separated, relative to `dir`), sorted. */
function fixtureFiles(dir) {
  const files = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith(".jsonl"))
        files.push(relative(dir, path).split(sep).join("/"));
    }
  };
  walk(dir);
  return files.sort();
}

function readManifest(dir) {
  const text = readFileSync(join(dir, MANIFEST), "utf8");
  return { text, manifest: JSON.parse(text) };
}

/**
 * What differs between the fixture files under `dir` and their manifest, one line each (empty when
 * they agree): a file whose bytes do not match its entry's digest, an entry without a file or
 * without a digest, a file without an entry, a file listed twice.
 */
export function checkFixtureDigests(dir = defaultFixturesDir) {
  const { manifest } = readManifest(dir);
  const problems = [];
  const listed = new Set();
  for (const [index, entry] of manifest.fixtures.entries()) {
    const where = `${MANIFEST} fixtures[${index}] (${entry.file})`;
    if (listed.has(entry.file)) problems.push(`${where}: listed twice`);
    listed.add(entry.file);
    let actual;
    try {
      actual = sha256(join(dir, entry.file));
    } catch {
      problems.push(`${where}: the file is missing`);
      continue;
    }
    if (typeof entry.sha256 !== "string") problems.push(`${where}: no sha256`);
    else if (entry.sha256 !== actual) {
      problems.push(`${where}: sha256 is ${entry.sha256}, the file's bytes hash to ${actual}`);
    }
  }
  for (const file of fixtureFiles(dir)) {
    if (!listed.has(file)) problems.push(`${file}: not listed in ${MANIFEST}`);
  }
  return problems;
}

/**
 * Writes each entry's digest from its file's bytes, keeping everything else of the manifest (and
 * its formatting) as it is. Files without an entry still need one written by hand: what a reader
 * must make of a fixture is not something a digest can say. Returns the entries it changed.
 */
export function updateFixtureDigests(dir = defaultFixturesDir) {
  const { manifest } = readManifest(dir);
  const changed = [];
  for (const entry of manifest.fixtures) {
    const actual = sha256(join(dir, entry.file));
    if (entry.sha256 !== actual) changed.push(entry.file);
    entry.sha256 = actual;
  }
  writeFileSync(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return changed;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const update = args.includes("--update");
  const dir = resolve(args.find((arg) => arg !== "--update") ?? defaultFixturesDir);
  if (update) {
    const changed = updateFixtureDigests(dir);
    console.log(changed.length === 0 ? "every digest was current" : `updated: ${changed.join(", ")}`);
  }
  const problems = checkFixtureDigests(dir);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`${problems.length} fixture(s) differ from ${join(dir, MANIFEST)}`);
    process.exit(1);
  }
  if (!update) console.log(`every fixture matches ${MANIFEST}`);
}
