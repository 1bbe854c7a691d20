// No spread of an array into a call's arguments in shipped code: `Math.max(...rows)` and
// `list.push(...more)` put every element on the stack and throw RangeError ("Maximum call stack
// size exceeded") past about 100,000 elements, which real traces reach. Loop instead. A spread
// whose length is bounded by construction may stay with a `spread-ok: <why>` comment on its line
// or the line above.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

function sourceFiles(directory: string, found: string[] = []): string[] {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) sourceFiles(path, found);
    else if (/\.(ts|tsx|mts|cts)$/.test(entry.name) && !/\.(test|test-d|d)\.ts$/.test(entry.name)) {
      found.push(path);
    }
  }
  return found;
}

/** `file:line: call` for each spread argument without a `spread-ok` note. */
export function spreadsIntoCalls(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lines = text.split("\n");
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isSpreadElement(node) && (ts.isCallExpression(node.parent) || ts.isNewExpression(node.parent))) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const noted = /spread-ok:/.test(lines[line] ?? "") || /spread-ok:/.test(lines[line - 1] ?? "");
      if (!noted)
        found.push(`${relative(root, path)}:${line + 1}: ${node.parent.getText(source).slice(0, 60)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("no spread of an array into a call", () => {
  it("finds none in packages/*/src", () => {
    const packages = join(root, "packages");
    const found: string[] = [];
    for (const entry of readdirSync(packages, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      for (const path of sourceFiles(join(packages, entry.name, "src"))) {
        for (const hit of spreadsIntoCalls(path, readFileSync(path, "utf8"))) found.push(hit);
      }
    }
    expect(found).toEqual([]);
  });

  it("catches the shapes that crash and lets literals and noted spreads through", () => {
    const text = [
      "const widest = Math.max(...rows.map((row) => row.length));",
      "list.push(...more);",
      "new Set(...args);",
      "const copy = [...rows];",
      "const merged = { ...left, ...right };",
      "function f(...rest: number[]) { return rest; }",
      "// spread-ok: two elements",
      "Math.min(...pair);",
    ].join("\n");
    expect(spreadsIntoCalls(join(root, "example.ts"), text)).toEqual([
      "example.ts:1: Math.max(...rows.map((row) => row.length))",
      "example.ts:2: list.push(...more)",
      "example.ts:3: new Set(...args)",
    ]);
  });
});
