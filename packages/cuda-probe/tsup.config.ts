import { defineConfig } from "tsup";

export default defineConfig({
  // The sampler worker is its own entry: worker_threads needs a real file beside the bundle.
  entry: ["src/index.ts", "src/sampler-worker.ts"],
  format: ["esm", "cjs"],
  dts: { entry: "src/index.ts" },
  clean: true,
  sourcemap: true,
  // import.meta.url (lazy koffi require, worker location) in the CommonJS build.
  shims: true,
  target: "node20",
});
