import { copyFile } from "node:fs/promises";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  // The JSON Schema is generated into the package root (committed) and shipped from dist.
  onSuccess: async () => {
    await copyFile("trace6.schema.json", "dist/trace6.schema.json");
  },
});
