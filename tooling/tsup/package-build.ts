// The build every published package shares: dual ESM + CommonJS, each with its own type
// declarations (publint --strict and attw check the result), source maps, Node 20 syntax.
import { defineConfig, type Options } from "tsup";

/**
 * Source maps ship without the sources embedded: with `node --enable-source-maps` a stack trace
 * still names the TypeScript file and line (`src/…ts` at the tagged version in the repository),
 * while the tarball stays less than half the size it is with every source file inside its maps.
 */
export const sourceMapOptions = {
  sourcemap: true,
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
} satisfies Options;

/** Declarations marked `@internal` stay out of the published types. */
export const declarationOptions = { compilerOptions: { stripInternal: true } };

export function packageBuild(overrides: Options = {}) {
  return defineConfig({
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: declarationOptions,
    clean: true,
    ...sourceMapOptions,
    target: "node20",
    ...overrides,
  });
}
