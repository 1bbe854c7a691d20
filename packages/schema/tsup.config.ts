import { copyFile } from "node:fs/promises";
import { packageBuild } from "../../tooling/tsup/package-build.ts";

export default packageBuild({
  // The JSON Schema is generated into the package root (committed) and shipped from dist.
  onSuccess: async () => {
    await copyFile("trace6.schema.json", "dist/trace6.schema.json");
  },
});
