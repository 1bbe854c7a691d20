// Run by `pnpm lint`: no module may reach itself through its imports, type-only imports included
// (a type-only circle still ties two files into one concept and breaks as soon as one turns real).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Move what both files need into a small file of its own that both import.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|test-output)/" },
    // Type-only imports and re-exports count: they are edges of the graph like any other import.
    tsPreCompilationDeps: true,
    webpackConfig: { fileName: "tooling/depcruise/source-resolve.cjs" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".d.ts"],
    },
  },
};
