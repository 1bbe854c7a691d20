import type { Options } from "tsup";
import { packageBuild } from "../../tooling/tsup/package-build.ts";

/**
 * In CommonJS (built without code splitting) the root entry requires `./core.cjs` instead of
 * bundling a second copy of it: a program that requires both `@cg/schema` and `@cg/schema/core`
 * (directly or through another @cg package) then has one ColumnBatch and one CgError, as in ESM,
 * where the entries share chunks.
 */
const rootRequiresCore: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "root-requires-core",
  setup(build) {
    if (build.initialOptions.format !== "cjs") return;
    build.onResolve({ filter: /^\.\/core\.js$/ }, (args) =>
      args.importer.endsWith("/src/index.ts") ? { path: "./core.cjs", external: true } : undefined,
    );
  },
};

// The JSON Schema is generated into the package root (committed) and shipped from there, once.
export default packageBuild({
  entry: ["src/index.ts", "src/core.ts", "src/codegen.ts"],
  esbuildPlugins: [rootRequiresCore],
});
