import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "node20",
  },
  {
    // The executable: ESM only (it uses top-level await), no types.
    entry: ["src/bin.ts"],
    format: ["esm"],
    sourcemap: true,
    target: "node20",
  },
]);
