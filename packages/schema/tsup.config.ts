import { packageBuild } from "../../tooling/tsup/package-build.ts";

// The JSON Schema is generated into the package root (committed) and shipped from there, once.
export default packageBuild({ entry: ["src/index.ts", "src/codegen.ts"] });
