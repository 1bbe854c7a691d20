import { packageProject } from "@cg/tooling-vitest";

export default packageProject("@cg/cli");
