import { defineProject } from "vitest/config";
import { reportSettings } from "../../tooling/vitest/shared.ts";

export default defineProject({
  test: {
    name: "third-party-reader",
    include: ["*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    ...reportSettings(),
  },
});
