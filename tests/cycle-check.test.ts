// The cycle check of `pnpm lint` (`.dependency-cruiser.cjs`) sees what it is meant to: a circle made
// of type-only imports fails it, and `@cg/*` imports are followed into the packages' sources.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "./workspace-packages.js";

const scratch = mkdtempSync(join(tmpdir(), "cg-cycles-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function cruise(...args: string[]) {
  return spawnSync(
    join(repoRoot, "node_modules/.bin/depcruise"),
    [...args, "--config", ".dependency-cruiser.cjs"],
    { cwd: repoRoot, encoding: "utf8", timeout: 120_000 },
  );
}

describe("cycle check", () => {
  it("fails on a circle of type-only imports and names its files", () => {
    const dir = join(scratch, "circle");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "left.ts"),
      'import type { Right } from "./right.js";\nexport type Left = Right | 1;\n',
    );
    writeFileSync(
      join(dir, "right.ts"),
      'import type { Left } from "./left.js";\nexport type Right = Left | 2;\n',
    );
    const result = cruise(dir);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("no-circular");
    expect(result.stdout).toMatch(/left\.ts[\s\S]*right\.ts/);
  });

  it("passes the same files without the circle", () => {
    const dir = join(scratch, "line");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "left.ts"),
      'import type { Right } from "./right.js";\nexport type Left = Right | 1;\n',
    );
    writeFileSync(join(dir, "right.ts"), "export type Right = 2;\n");
    expect(cruise(dir).status).toBe(0);
  });

  it("follows @cg imports into the packages' sources, subpaths included", () => {
    const dir = join(scratch, "aliases");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "user.ts"),
      'import type { U64 } from "@cg/schema";\nimport type { SourceCompiler } from "@cg/schema/codegen";\nexport type Both = [U64, SourceCompiler];\n',
    );
    const result = cruise(dir, "--output-type", "json", "--do-not-follow", "packages");
    const report = JSON.parse(result.stdout) as {
      modules: { source: string; dependencies: { module: string; resolved: string }[] }[];
    };
    const user = report.modules.find((module) => module.source.endsWith("user.ts"));
    const resolved = Object.fromEntries(user!.dependencies.map((dep) => [dep.module, dep.resolved]));
    expect(resolved).toEqual({
      "@cg/schema": "packages/schema/src/index.ts",
      "@cg/schema/codegen": "packages/schema/src/codegen.ts",
    });
  });
});
