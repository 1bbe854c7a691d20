import { declarationOptions, packageBuild } from "../../tooling/tsup/package-build.ts";

export default packageBuild({
  // The range worker of the parallel file reader is its own file beside the bundle (worker_threads
  // needs one); its types are not published.
  entry: { index: "src/index.ts", core: "src/core.ts", "range-worker": "src/node/range-worker.ts" },
  dts: { ...declarationOptions, entry: { index: "src/index.ts", core: "src/core.ts" } },
  // import.meta.url (the worker's location) in the CommonJS build.
  shims: true,
});
