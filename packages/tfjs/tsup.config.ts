import { packageBuild } from "../../tooling/tsup/package-build.ts";

// TensorFlow.js is a peer dependency: the user's copy is the one to instrument.
export default packageBuild({ external: ["@tensorflow/tfjs"] });
