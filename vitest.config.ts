import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["packages/*", "examples/*"],
    reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
  },
});
