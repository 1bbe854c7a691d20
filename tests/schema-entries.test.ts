// `@cg/schema` and `@cg/schema/core` share their modules in both module systems: a program that
// loads the root (for the zod schemas) and a package that loads core (every @cg package) must meet
// one ColumnBatch class, one CgError and one layout table, or `instanceof` and identity checks
// between them would fail.
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./workspace-packages.js";

const shared = ["ColumnBatch", "CgError", "EVENT_LAYOUTS", "decodeTraceLine", "canonicalColumnReader"];

describe("@cg/schema entries", () => {
  it("share their modules in ESM", async () => {
    const root = await import("@cg/schema");
    const core = await import("@cg/schema/core");
    for (const name of shared)
      expect(root[name as keyof typeof root], name).toBe(core[name as keyof typeof core]);
    expect(typeof root.TraceEvent.parse).toBe("function");
    expect("TraceEvent" in core).toBe(false);
  });

  it("share their modules in CommonJS", () => {
    const require = createRequire(join(repoRoot, "tests", "package.json"));
    const root = require("@cg/schema") as Record<string, unknown>;
    const core = require("@cg/schema/core") as Record<string, unknown>;
    expect(require.resolve("@cg/schema/core")).toMatch(/core\.cjs$/);
    for (const name of shared) expect(root[name], name).toBe(core[name]);
    expect(typeof (root.TraceEvent as { parse: unknown }).parse).toBe("function");
    expect("TraceEvent" in core).toBe(false);
  });
});
