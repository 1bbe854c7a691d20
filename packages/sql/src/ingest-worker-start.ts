import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { IngestWorkerData } from "./ingest-worker-protocol.js";

/**
 * Starts the ingest's reading thread: `ingest-worker.js` / `.cjs` beside the built bundle, or,
 * from TypeScript sources (tests), `ingest-worker.ts` loaded through tsx's API (Node 20 applies
 * no `--import` loader hooks to a worker's entry). The worker takes none of the host's Node flags.
 */
export function startIngestWorker(data: IngestWorkerData): Worker {
  const options = { execArgv: [], workerData: data };
  const here = import.meta.url;
  if (!here.endsWith(".ts")) {
    return new Worker(new URL(`./ingest-worker${here.endsWith(".cjs") ? ".cjs" : ".js"}`, here), options);
  }
  const tsx = join(dirname(createRequire(here).resolve("tsx/package.json")), "dist/esm/api/index.mjs");
  const entry = new URL("./ingest-worker.ts", here).href;
  const source = `import(${JSON.stringify(pathToFileURL(tsx).href)}).then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}));`;
  return new Worker(source, { ...options, eval: true });
}
