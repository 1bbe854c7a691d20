import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * Starts a range worker: `range-worker.js` / `.cjs` beside the built bundle, or, from TypeScript
 * sources (tests), `range-worker.ts` imported through tsx's API, as Node 20 applies no `--import`
 * loader hooks to a worker's entry. The worker takes none of the host's Node flags.
 */
export function startRangeWorker(): Worker {
  // A range's results are small and short-lived: a small heap keeps the threads' memory down
  // (a range that needs more fails its thread, and the merge reads the rest itself).
  const options = {
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 12 },
  };
  const here = import.meta.url;
  if (!here.endsWith(".ts")) {
    const extension = here.endsWith(".cjs") ? ".cjs" : ".js";
    return new Worker(new URL(`./range-worker${extension}`, here), options);
  }
  const tsxApi = pathToFileURL(
    join(dirname(createRequire(here).resolve("tsx/package.json")), "dist/esm/api/index.mjs"),
  );
  const entry = new URL("./range-worker.ts", here).href;
  const bootstrap = `import(${JSON.stringify(tsxApi.href)}).then((tsx) => tsx.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}));`;
  return new Worker(bootstrap, { ...options, eval: true });
}
