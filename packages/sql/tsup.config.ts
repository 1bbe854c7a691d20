import { packageBuild } from "../../tooling/tsup/package-build.ts";

export default packageBuild();
