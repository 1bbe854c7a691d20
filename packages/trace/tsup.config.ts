import { packageBuild } from "../../tooling/tsup/package-build.ts";

// `@cg/trace/cuda` is its own entry so that importing `@cg/trace` never loads the native probe.
export default packageBuild({ entry: ["src/index.ts", "src/cuda.ts"] });
