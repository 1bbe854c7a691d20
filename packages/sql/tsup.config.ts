import { declarationOptions, packageBuild } from "../../tooling/tsup/package-build.ts";

export default packageBuild({
  // The ingest's reading thread is its own file beside the bundle (worker_threads needs one); its
  // types are not published.
  entry: { index: "src/index.ts", "ingest-worker": "src/ingest-worker.ts" },
  dts: { ...declarationOptions, entry: { index: "src/index.ts" } },
  // import.meta.url (the worker's location) in the CommonJS build.
  shims: true,
});
