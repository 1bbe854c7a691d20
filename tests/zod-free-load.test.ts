// zod's module graph takes about a tenth of a second of CPU to load, so the readers, the writer and
// the CLI load the wire contract from `@cg/schema/core`, which has no zod schema. A module hook
// logs every module a fresh process loads: these entries and `cg-trace summary` must load no zod,
// and `@cg/schema` (the root, with the zod schemas) must, or the hook sees nothing. `summary` loads no
// module of the commands it does not run either, nor string-width while its tables need no wide character.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "./workspace-packages.js";

const scratch = mkdtempSync(join(tmpdir(), "cg-zod-free-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const hooks = join(scratch, "hooks.mjs");
writeFileSync(
  hooks,
  `import { appendFileSync } from "node:fs";
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) {
  appendFileSync(log, url + "\\n");
  return next(url, context);
}
`,
);
const register = join(scratch, "register.mjs");
writeFileSync(
  register,
  `import { register } from "node:module";
register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { log: process.env.CG_LOAD_LOG } });
`,
);

let runs = 0;

/** The URLs of the modules a fresh `node` loads running `args` in `cwd`. */
function loadedModules(args: string[], cwd: string): string[] {
  const log = join(scratch, `loaded-${runs++}.txt`);
  writeFileSync(log, "");
  const result = spawnSync(process.execPath, ["--import", pathToFileURL(register).href, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CG_LOAD_LOG: log },
    timeout: 60_000,
  });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}

function importing(specifier: string): string[] {
  return loadedModules(
    ["--input-type=module", "-e", `await import(${JSON.stringify(specifier)});`],
    join(repoRoot, "tests"),
  );
}

const zod = (urls: string[]) =>
  urls.filter((url) => /\/node_modules\/(\.pnpm\/zod@[^/]+\/node_modules\/)?zod\//.test(url));

describe("modules that load without zod", () => {
  it("@cg/schema, the root with the zod schemas, loads zod (the hook sees it)", () => {
    const urls = importing("@cg/schema");
    expect(urls.some((url) => url.includes("/schema/dist/"))).toBe(true);
    expect(zod(urls).length).toBeGreaterThan(0);
  });

  for (const specifier of ["@cg/schema/core", "@cg/parser", "@cg/memory", "@cg/writer", "@cg/clock"]) {
    it(`${specifier} loads no zod`, () => {
      const urls = importing(specifier);
      const dist = `/packages/${specifier.split("/")[1]}/dist/`;
      expect(urls.some((url) => url.includes(dist))).toBe(true);
      expect(zod(urls)).toEqual([]);
    });
  }

  it("cg-trace summary loads no zod", () => {
    const fixture = join(repoRoot, "fixtures/trace6/valid/blank-lines-crlf.jsonl");
    const urls = loadedModules([join(repoRoot, "packages/cli/dist/bin.js"), "summary", fixture], repoRoot);
    expect(urls.some((url) => url.includes("/parser/dist/"))).toBe(true);
    expect(zod(urls)).toEqual([]);
    // The report, the writer and the probe are loaded by `view` and `demo` alone, when they run.
    for (const other of ["report", "writer", "cuda-probe"]) {
      expect(urls.filter((url) => url.includes(`/packages/${other}/dist/`))).toEqual([]);
    }
    expect(urls.filter((url) => url.includes("/string-width/"))).toEqual([]);
  });

  it("cg-trace summary requires string-width only for a table cell of wider characters", () => {
    // The table requires it on first use (the module hook does not see a require of an ES module;
    // Node's module debug log does).
    const requires = (trace: string) => {
      const result = spawnSync(
        process.execPath,
        [join(repoRoot, "packages/cli/dist/bin.js"), "summary", trace],
        {
          cwd: repoRoot,
          encoding: "utf8",
          env: { ...process.env, NODE_DEBUG: "module" },
          timeout: 60_000,
        },
      );
      expect(result.status).toBe(0);
      return result.stderr.includes("Module._load REQUEST string-width");
    };
    const golden = join(repoRoot, "fixtures/trace6/valid/golden-train.jsonl");
    const wide = join(scratch, "wide-names.jsonl");
    writeFileSync(
      wide,
      readFileSync(golden, "utf8").replaceAll('"op_name":"matmul"', '"op_name":"矩阵乘法"'),
    );
    // Durations print as "µs": one column, no string-width for them.
    expect(requires(golden)).toBe(false);
    expect(requires(wide)).toBe(true);
  });
});
