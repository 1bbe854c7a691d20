import { packageBuild } from "../../tooling/tsup/package-build.ts";

// ONNX Runtime is a peer dependency: the user's copy (native binaries included) is the one profiled.
export default packageBuild({ external: ["onnxruntime-node", "onnx-proto"] });
