import { defineConfig } from "tsup";
import { declarationOptions, sourceMapOptions } from "../../tooling/tsup/package-build.ts";

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
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
