// The CLI as a user runs it: the built binary on the shared fixtures and on hand-made traces.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixturesDir, repoRoot } from "@cg/tooling-vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonl, META } from "./helpers.ts";

const bin = join(repoRoot, "packages/cli/dist/bin.js");
let work = "";

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(...args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i] as T);
      }
    }),
  );
  return results;
}

interface FixtureEntry {
  file: string;
  expect: "valid" | "parse_error" | "health";
  health?: { trusted: boolean };
  line?: number | null;
}

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: FixtureEntry[];
};
// Each CLI start costs seconds on the shared machine, so a representative subset of the fixtures.
const SAMPLE = [
  "golden-train",
  "blank-lines-crlf",
  "n01-",
  "n04-",
  "n12c-",
  "n15-",
  "h01-",
  "h02-",
  "h04-",
  "h11-",
  "h12-",
];
const sampled = manifest.fixtures.filter((entry) =>
  SAMPLE.some((prefix) => entry.file.split("/").pop()?.startsWith(prefix)),
);

beforeAll(() => {
  if (!existsSync(bin))
    execFileSync("pnpm", ["turbo", "run", "build", "--filter", "@cg/cli..."], {
      cwd: repoRoot,
      stdio: "ignore",
    });
  work = mkdtempSync(join(tmpdir(), "cg-conformance-cli-"));
});

afterAll(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true });
});

describe("cg-trace validate exit codes on fixtures", () => {
  it("0 for trusted, 1 for untrusted, 2 for parse errors (with file:line)", async () => {
    expect(sampled).toHaveLength(SAMPLE.length);
    const results = await pool(sampled, 4, async (entry) => ({
      entry,
      result: await cli("validate", join(fixturesDir, entry.file)),
    }));
    for (const { entry, result } of results) {
      const expected = entry.expect === "parse_error" ? 2 : entry.health?.trusted === false ? 1 : 0;
      expect({ file: entry.file, code: result.code }).toEqual({ file: entry.file, code: expected });
      if (entry.expect === "parse_error" && typeof entry.line === "number") {
        expect(result.stderr).toContain(`${entry.file.split("/").pop()}:${entry.line}:`);
      }
    }
  });

  it("2 for a missing file and for a usage error", async () => {
    expect((await cli("validate", join(work, "nope.jsonl"))).code).toBe(2);
    expect((await cli("validate")).code).toBe(2);
    expect((await cli("frobnicate")).code).toBe(2);
  });

  it("--lenient on a truncated trace reports it and exits 1", async () => {
    const file = join(work, "truncated.jsonl");
    writeFileSync(
      file,
      `${readFileSync(join(fixturesDir, "valid/golden-train.jsonl"), "utf8")}{"kind":"op","span`,
    );
    expect((await cli("validate", file)).code).toBe(2);
    const lenient = await cli("validate", file, "--lenient");
    expect(lenient.code).toBe(1);
    expect(`${lenient.stdout}${lenient.stderr}`).toContain("truncated");
  });
});

describe("--json outputs carry exact big numbers", () => {
  const bigTrace = () => {
    const file = join(work, "big.jsonl");
    writeFileSync(
      file,
      jsonl(
        META,
        '{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}',
        '{"kind":"op","span_id":"s1","op_name":"big","shape":[4294967296,4294967296,2],"dtype":"f64","device":"cpu","duration_ns":9007199254740993}',
        '{"kind":"memory","timestamp_ns":9007199254740995,"tensor_id":"t","span_id":"s1","device":"cpu","bytes":18446744073709551615,"action":"alloc","dtype":"u8"}',
        '{"kind":"memory","timestamp_ns":9007199254740997,"tensor_id":"t","span_id":"s1","device":"cpu","bytes":18446744073709551615,"action":"free","dtype":"u8"}',
        '{"kind":"span_end","id":"s1","duration_ns":18446744073709551614}',
      ),
    );
    return file;
  };

  it("summary --json: valid JSON, exact u64 digits unquoted", async () => {
    const result = await cli("summary", bigTrace(), "--json");
    expect(result.code).toBe(0);
    expect(() => JSON.parse(result.stdout)).not.toThrow();
    expect(result.stdout).toMatch(/:\s*18446744073709551614\b/);
    expect(result.stdout).toMatch(/:\s*18446744073709551615\b/);
    expect(result.stdout).toMatch(/:\s*9007199254740995\b/);
    expect(result.stdout).not.toContain("18446744073709552000");
    expect(result.stdout).not.toMatch(/"18446744073709551615"/);
  });

  it("query --kind memory --json: exact peak and timestamps", async () => {
    const result = await cli("query", bigTrace(), "--kind", "memory", "--json");
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as { result: { schema: string; kind: string } };
    expect(parsed.result).toMatchObject({ schema: "candle-graph/trace-query/1", kind: "memory" });
    expect(result.stdout).toMatch(/"peak_bytes":\s*18446744073709551615\b/);
    expect(result.stdout).toMatch(/"peak_timestamp_ns":\s*9007199254740995\b/);
  });

  it("compare --json of a trace with itself: comparable, zero deltas, exact totals", async () => {
    const file = bigTrace();
    const result = await cli("compare", file, file, "--json");
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as {
      schema: string;
      comparable: boolean;
      total_delta_ns: number;
    };
    expect(parsed.schema).toBe("candle-graph/comparison/1");
    expect(parsed.comparable).toBe(true);
    expect(parsed.total_delta_ns).toBe(0);
    expect(result.stdout).toMatch(/"total_ns":\s*18446744073709551614\b/);
  });

  it("summary --json of fixtures parses and agrees with the manifest summary", async () => {
    const valid = sampled.filter(
      (f) => f.expect !== "parse_error" && /golden|h04|h11/.test(f.file),
    ) as (FixtureEntry & { summary: Record<string, number> })[];
    const results = await pool(valid, 4, async (entry) => ({
      entry,
      result: await cli("summary", join(fixturesDir, entry.file), "--json"),
    }));
    for (const { entry, result } of results) {
      expect(result.code, entry.file).toBe(0);
      const parsed = JSON.parse(result.stdout) as {
        summary: Record<string, unknown>;
        health: { trusted: boolean };
      };
      expect(parsed.health.trusted, entry.file).toBe(entry.health?.trusted ?? true);
      for (const [key, value] of Object.entries(entry.summary))
        expect(parsed.summary[key], `${entry.file} ${key}`).toBe(value);
    }
  });
});

describe("convert --to perfetto", () => {
  interface ChromeEvent {
    ph: string;
    pid: number;
    tid: number;
    ts: number;
    dur: number;
    name: string;
    args?: Record<string, unknown>;
  }

  function assertNested(events: ChromeEvent[]): void {
    const tracks = new Map<string, ChromeEvent[]>();
    for (const event of events.filter((e) => e.ph === "X")) {
      const key = `${event.pid}/${event.tid}`;
      tracks.set(key, [...(tracks.get(key) ?? []), event]);
    }
    for (const [track, list] of tracks) {
      const ns = list.map((e) => ({
        start: Math.round(e.ts * 1000),
        end: Math.round((e.ts + e.dur) * 1000),
        name: e.name,
      }));
      ns.sort((a, b) => a.start - b.start || b.end - a.end);
      const stack: number[] = [];
      for (const slice of ns) {
        while (stack.length > 0 && (stack.at(-1) ?? 0) <= slice.start) stack.pop();
        if (stack.length > 0)
          expect(slice.end, `${track}: ${slice.name} must nest`).toBeLessThanOrEqual(stack.at(-1) ?? 0);
        stack.push(slice.end);
      }
    }
  }

  it("golden: valid JSON with one X slice per span and op, nested per track", async () => {
    const out = join(work, "golden.json");
    const result = await cli(
      "convert",
      join(fixturesDir, "valid/golden-train.jsonl"),
      "--to",
      "perfetto",
      "-o",
      out,
    );
    expect(result.code).toBe(0);
    const parsed = JSON.parse(readFileSync(out, "utf8")) as { traceEvents: ChromeEvent[] };
    const slices = parsed.traceEvents.filter((e) => e.ph === "X");
    expect(slices).toHaveLength(6);
    expect(slices.find((e) => e.name === "demo/update-000000000001")).toMatchObject({ ts: 1, dur: 90 });
    assertNested(parsed.traceEvents);
  });

  it("overlapping siblings and a child ending after its parent are split into nesting lanes", async () => {
    const file = join(work, "overlap.jsonl");
    writeFileSync(
      file,
      jsonl(
        META,
        '{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}',
        '{"kind":"span_start","id":"a","parent_id":"s1","name":"a","start_ns":1000,"span_kind":"function"}',
        '{"kind":"span_start","id":"b","parent_id":"s1","name":"b","start_ns":1500,"span_kind":"function"}',
        '{"kind":"span_start","id":"c","parent_id":"a","name":"c","start_ns":1800,"span_kind":"op"}',
        '{"kind":"span_end","id":"c","duration_ns":5000}',
        '{"kind":"span_end","id":"a","duration_ns":1000}',
        '{"kind":"span_end","id":"b","duration_ns":1000}',
        '{"kind":"span_start","id":"open","parent_id":"s1","name":"open","start_ns":100,"span_kind":"function"}',
        '{"kind":"op","span_id":"a","op_name":"x","dtype":"f32","device":"cpu","duration_ns":700,"timestamp_ns":1000}',
        '{"kind":"op","span_id":"b","op_name":"y","dtype":"f32","device":"cpu","duration_ns":700,"timestamp_ns":1200}',
        '{"kind":"op","span_id":"b","op_name":"z","dtype":"f32","device":"cpu","duration_ns":1,"timestamp_ns":18446744073709551615}',
        '{"kind":"span_end","id":"s1","duration_ns":10000}',
      ),
    );
    const out = join(work, "overlap.json");
    const result = await cli("convert", file, "--to", "perfetto", "-o", out);
    expect(result.code).toBe(0);
    const raw = readFileSync(out, "utf8");
    const parsed = JSON.parse(raw) as { traceEvents: ChromeEvent[] };
    assertNested(parsed.traceEvents.filter((e) => !(e.ph === "X" && e.name === "z")));
    // the op at 2^64-1 ns keeps its exact microsecond digits
    expect(raw).toContain("18446744073709551.615");
  });
});
