import { declarationOptions, packageBuild } from "../../tooling/tsup/package-build.ts";

export default packageBuild({
  // The sampler worker is its own entry: worker_threads needs a real file beside the bundle.
  entry: ["src/index.ts", "src/sampler-worker.ts"],
  dts: { ...declarationOptions, entry: "src/index.ts" },
  // import.meta.url (lazy koffi require, worker location) in the CommonJS build.
  shims: true,
});
