import { packageBuild } from "../../tooling/tsup/package-build.ts";

export default packageBuild({ entry: ["src/index.ts", "src/core.ts"] });
