// The Perfetto export opened in speedscope itself: the npm package's own build, loaded in Debian's
// chromium the way its `speedscope <file>` command does (#localProfilePath= a script calling
// speedscope.loadFileFromBase64). Its Sandwich view lists one row per frame, and frames are keyed
// on name plus args, so every call of one op must land in one row with the summed time.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, runBinary } from "./built-binary.js";
import type { ChromeTrace } from "./perfetto-rules.js";
import { checkPerfettoRules } from "./perfetto-rules.js";

const scratch = mkdtempSync(join(tmpdir(), "cg-cli-speedscope-"));
const speedscopeIndex = join(
  dirname(createRequire(import.meta.url).resolve("speedscope/package.json")),
  "dist/release/index.html",
);
const CALLS = 7;

const meta = `{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"train","phase":"train","timestamp":"2025-01-01T00:00:00.000Z","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}`;

/** CALLS "layer" spans, each running a matmul of (call + 1) µs and a 0.5 µs relu, all ids unique. */
function writeTrace(path: string): void {
  const lines = [
    meta,
    `{"kind":"span_start","id":"root","name":"step","start_ns":0,"span_kind":"function","measured":true}`,
  ];
  for (let call = 0; call < CALLS; call += 1) {
    const start = 1_000 + call * 30_000;
    lines.push(
      `{"kind":"span_start","id":"layer-${call}","parent_id":"root","name":"layer","start_ns":${start},"span_kind":"module"}`,
      `{"kind":"op","span_id":"layer-${call}","op_name":"matmul","inputs":["x${call}","w"],"output":"y${call}","shape":[2,3],"dtype":"f32","device":"cpu","duration_ns":${(call + 1) * 1000},"timestamp_ns":${start + 100}}`,
      `{"kind":"op","span_id":"layer-${call}","op_name":"relu","inputs":["y${call}"],"output":"z${call}","shape":[2,3],"dtype":"f32","device":"cpu","duration_ns":500,"timestamp_ns":${start + 10_000}}`,
      `{"kind":"span_end","id":"layer-${call}","duration_ns":20000}`,
    );
  }
  lines.push(`{"kind":"span_end","id":"root","duration_ns":${1_000 + CALLS * 30_000}}`);
  writeFileSync(path, `${lines.join("\n")}\n`);
}

interface SandwichRow {
  total: string;
  self: string;
  name: string;
}

/** Rows of the Sandwich table: total, self, frame name ("name {args}"). */
function sandwichRows(page: Page): Promise<SandwichRow[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll("tr"))
      .map((row) => Array.from(row.querySelectorAll("td"), (cell) => (cell.textContent ?? "").trim()))
      .filter((cells) => cells.length === 3 && /\(\d+%\)$/.test(cells[0]!))
      .map(([total, self, name]) => ({ total: total!, self: self!, name: name! })),
  );
}

let browser: Browser;
beforeAll(async () => {
  ensureBuilt();
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking"],
  });
}, 300_000);
afterAll(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("cg-trace convert, opened in speedscope (built binary, chromium)", () => {
  it("groups every call of one op and of one span name into one frame with the summed time", async () => {
    writeTrace(join(scratch, "layers.jsonl"));
    const convert = runBinary(["convert", "layers.jsonl", "-o", "layers.json"], { cwd: scratch });
    expect(convert.stderr).toBe("");
    expect(convert.status).toBe(0);
    const exported = readFileSync(join(scratch, "layers.json"));

    // Perfetto's side: every call keeps its own ids, on the instant that follows its slice.
    const trace = JSON.parse(exported.toString("utf8")) as ChromeTrace;
    checkPerfettoRules(trace);
    const ids = trace.traceEvents.filter((event) => event.ph === "i").map((event) => event.args);
    for (let call = 0; call < CALLS; call += 1) {
      expect(ids).toContainEqual({ span_id: `layer-${call}`, output: `y${call}`, inputs: `x${call},w` });
      expect(ids).toContainEqual({ span_id: `layer-${call}`, output: `z${call}`, inputs: `y${call}` });
      expect(ids).toContainEqual({ id: `layer-${call}`, parent_id: "root" });
    }

    const loader = join(scratch, "load-profile.js");
    writeFileSync(
      loader,
      `speedscope.loadFileFromBase64("layers.json", ${JSON.stringify(exported.toString("base64"))})`,
    );
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      // Speedscope warns on every B/E frame it cannot match; the GPU emulation's notes are noise.
      if (
        (message.type() === "warning" || message.type() === "error") &&
        !/GL Driver|WebGL/.test(message.text())
      )
        problems.push(`console: ${message.text()}`);
    });
    await page.goto(`${pathToFileURL(speedscopeIndex).href}#localProfilePath=${loader}`);
    await page.getByText("Sandwich").click();

    // First profile: the spans track.
    await page.getByText("spans (tid 1)").first().waitFor();
    await expect.poll(() => sandwichRows(page)).toHaveLength(2);
    expect(await sandwichRows(page)).toEqual([
      {
        total: "140.00µs (66%)",
        self: "140.00µs (66%)",
        name: `layer {"span_kind":"module","measured":false}`,
      },
      {
        total: "211.00µs (100%)",
        self: "71.00µs (34%)",
        name: `step {"span_kind":"function","measured":true}`,
      },
    ]);

    // Next profile ("n"): the ops track. 1 + 2 + … + 7 µs of matmul in one frame, 7 × 0.5 µs of relu.
    await page.keyboard.press("n");
    await page.getByText("ops (tid 1001)").first().waitFor();
    const opArgs = `{"shape":"[2,3]","dtype":"f32","device":"cpu","storage_bytes":24,"input_storage_bytes":0}`;
    await expect
      .poll(() => sandwichRows(page))
      .toEqual([
        { total: "28.00µs (89%)", self: "28.00µs (89%)", name: `matmul ${opArgs}` },
        { total: "3.50µs (11%)", self: "3.50µs (11%)", name: `relu ${opArgs}` },
      ]);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});
