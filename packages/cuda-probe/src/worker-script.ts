import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/**
 * Where the sampler worker's script is, relative to this module: `sampler-worker.js` / `.cjs` beside
 * the built bundle, or, when running from TypeScript sources (tests), `sampler-worker.ts` loaded
 * through tsx.
 */
export function samplerWorkerScript(): { readonly url: URL; readonly execArgv: readonly string[] } {
  const here = import.meta.url;
  if (here.endsWith(".ts")) {
    const tsx = createRequire(here).resolve("tsx");
    return { url: new URL("./sampler-worker.ts", here), execArgv: ["--import", pathToFileURL(tsx).href] };
  }
  const extension = here.endsWith(".cjs") ? ".cjs" : ".js";
  return { url: new URL(`./sampler-worker${extension}`, here), execArgv: [] };
}
