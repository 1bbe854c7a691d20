import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["packages/*", "examples/*", "tests"],
    reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
  },
});
