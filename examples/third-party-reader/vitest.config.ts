import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "third-party-reader",
    include: ["*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 180_000,
  },
});
