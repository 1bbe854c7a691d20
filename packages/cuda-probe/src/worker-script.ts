import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/** How to start the sampler worker: a script file, or (from TypeScript sources) a bootstrap. */
export type WorkerScript =
  | { readonly kind: "file"; readonly url: URL }
  | { readonly kind: "eval"; readonly code: string };

/**
 * Where the sampler worker's script is, relative to this module: `sampler-worker.js` / `.cjs` beside
 * the built bundle, or, when running from TypeScript sources (tests), `sampler-worker.ts` imported
 * through tsx's API (Node 20 does not apply `--import` loader hooks to a worker's entry).
 */
export function samplerWorkerScript(): WorkerScript {
  const here = import.meta.url;
  if (here.endsWith(".ts")) {
    // The ESM flavour of tsx's API (its `import` condition), located from its package.json.
    const tsxPackage = createRequire(here).resolve("tsx/package.json");
    const tsxApi = pathToFileURL(join(dirname(tsxPackage), "dist/esm/api/index.mjs")).href;
    const entry = new URL("./sampler-worker.ts", here).href;
    const code = `import(${JSON.stringify(tsxApi)}).then((api) => api.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}));`;
    return { kind: "eval", code };
  }
  const extension = here.endsWith(".cjs") ? ".cjs" : ".js";
  return { kind: "file", url: new URL(`./sampler-worker${extension}`, here) };
}
