import { packageProject } from "../../tooling/vitest/shared.ts";

export default packageProject("@cg/sql");
