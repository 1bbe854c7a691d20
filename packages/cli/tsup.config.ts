import { defineConfig } from "tsup";
import { declarationOptions, sourceMapOptions } from "../../tooling/tsup/package-build.ts";

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    // `import.meta.url` in the CJS build (the table's lazy require of string-width).
    shims: true,
    dts: declarationOptions,
    clean: true,
    ...sourceMapOptions,
    target: "node20",
  },
  {
    // The executable: ESM only (it uses top-level await), no types.
    entry: ["src/bin.ts"],
    format: ["esm"],
    ...sourceMapOptions,
    target: "node20",
  },
]);
