import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { type ResourceLimits, Worker } from "node:worker_threads";
import type { IngestWorkerData } from "./ingest-worker-protocol.js";

/**
 * The reading thread's V8 heap limits. That thread keeps 15–20 MB live but makes short-lived event
 * objects at hundreds of MB/s. With the defaults, V8 gives it a 48 MB young generation and lets its
 * old generation grow to up to four times the live size before a full collection (V8 scales that
 * growing factor with the heap limit, which on a machine with a lot of memory is several GB): 60–90
 * MB of heap for 15 MB live, which made the peak RSS of a 1 GiB ingest vary from 266 to 297 MiB
 * between runs. Under a 1 GiB limit V8 grows the old generation by about 1.6 times, and a 24 MB
 * young generation halves the semi-spaces: 41–44 MB of heap, peak RSS 246–254 MiB (probe runs,
 * same trace), for about 5 % more CPU on that thread, which smaller read batches won back
 * (ingest-trace.ts). An ingest whose reading needs more heap than this is read again on the
 * calling thread (`ingestTraces`).
 */
export const READING_HEAP_LIMITS: ResourceLimits = {
  maxYoungGenerationSizeMb: 24,
  maxOldGenerationSizeMb: 1024,
};

/** Whether `error` is a worker's report that it reached its heap limit. */
export function isWorkerOutOfMemory(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "ERR_WORKER_OUT_OF_MEMORY";
}

/**
 * Starts the ingest's reading thread: `ingest-worker.js` / `.cjs` beside the built bundle, or,
 * from TypeScript sources (tests), `ingest-worker.ts` loaded through tsx's API (Node 20 applies
 * no `--import` loader hooks to a worker's entry). The worker takes none of the host's Node flags.
 */
export function startIngestWorker(data: IngestWorkerData, resourceLimits = READING_HEAP_LIMITS): Worker {
  const options = { execArgv: [], workerData: data, resourceLimits };
  const here = import.meta.url;
  if (!here.endsWith(".ts")) {
    return new Worker(new URL(`./ingest-worker${here.endsWith(".cjs") ? ".cjs" : ".js"}`, here), options);
  }
  const tsx = join(dirname(createRequire(here).resolve("tsx/package.json")), "dist/esm/api/index.mjs");
  const entry = new URL("./ingest-worker.ts", here).href;
  const source = `import(${JSON.stringify(pathToFileURL(tsx).href)}).then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}));`;
  return new Worker(source, { ...options, eval: true });
}
