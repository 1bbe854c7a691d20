// The build every published package shares: dual ESM + CommonJS, each with its own type
// declarations (publint --strict and attw check the result), source maps, Node 20 syntax.
import { defineConfig, type Options } from "tsup";

export function packageBuild(overrides: Options = {}) {
  return defineConfig({
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "node20",
    ...overrides,
  });
}
