import { packageProject } from "../../tooling/vitest/shared.ts";

// The global setup builds dist (and its @cg dependencies) when stale: the sampler worker and the
// gpu-check script run as real files.
export default packageProject("@cg/cuda-probe", { globalSetup: ["./test/global-setup.ts"] });
