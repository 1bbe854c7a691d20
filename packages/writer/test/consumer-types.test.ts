// A consumer compiling against the published declarations: with Node types, and without them as a
// browser or edge project does (`types: []`, `lib: ES2022` with or without DOM). The span types need
// `Disposable` and `Symbol.dispose`, which the package declares itself (span-handle.ts).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const nodeTypes = resolve(packageRoot, "../../node_modules/@types");
let project = "";

const consumer = `
import { CaptureGate, NOOP_SESSION, ProfileRun, type SpanHandle, TraceSessionCore } from "@cg/writer";
const session = TraceSessionCore.inMemory(ProfileRun.training("x", 1, "cpu"));
{
  using span = session.beginSpan("a");
  session.recordOp(span, { opName: "m", dtype: "f32", device: "cpu", durationNs: 1 });
}
const handle: SpanHandle = NOOP_SESSION.beginSpan("b");
handle[Symbol.dispose]();
const disposable: Disposable = handle;
void disposable;
const gate = new CaptureGate(1, () => session);
gate.step(1).finish();
`;

beforeAll(() => {
  if (!existsSync(join(packageRoot, "dist/index.d.ts"))) {
    execFileSync("pnpm", ["turbo", "run", "build", "--filter", "@cg/writer"], {
      cwd: resolve(packageRoot, "../.."),
      stdio: "ignore",
    });
  }
  project = mkdtempSync(join(tmpdir(), "cg-writer-consumer-"));
  mkdirSync(join(project, "node_modules/@cg"), { recursive: true });
  symlinkSync(packageRoot, join(project, "node_modules/@cg/writer"), "dir");
  writeFileSync(join(project, "main.ts"), consumer);
}, 120_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

function compile(options: Record<string, unknown>): string {
  const config = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      typeRoots: [nodeTypes],
      ...options,
    },
    files: ["main.ts"],
  };
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify(config));
  try {
    execFileSync(process.execPath, [tsc, "-p", project], { encoding: "utf8" });
    return "";
  } catch (error) {
    return String((error as { stdout?: string }).stdout);
  }
}

describe("declarations compile for every kind of consumer", { timeout: 180_000 }, () => {
  it("a browser project: lib ES2022 + DOM, no Node types, declarations checked", () => {
    expect(compile({ lib: ["ES2022", "DOM"], types: [], skipLibCheck: false })).toBe("");
  });
  it("an edge project: lib ES2022 only, no Node types", () => {
    // zod (through @cg/schema) names `URL` in its declarations, so such a project skips lib checks.
    expect(compile({ lib: ["ES2022"], types: [], skipLibCheck: true })).toBe("");
  });
  // @types/node declares Disposable and Symbol.dispose too: the package's declarations merge with them.
  it("a Node project: lib ES2022 with @types/node", () => {
    expect(compile({ lib: ["ES2022"], types: ["node"], skipLibCheck: false })).toBe("");
  });
});
