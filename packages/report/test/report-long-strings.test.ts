// A 1 MB span name: the page stays small (the name is kept once) and shows it in full on demand.
import { parseTraceText, type TraceDocument } from "@cg/parser";
import { ProfileRun, TraceSessionCore } from "@cg/writer";
import { describe, expect, it } from "vitest";
import { buildReportPayload, renderReport } from "../src/index.js";
import { browserForFile, openReport, showView } from "./browser-harness.js";

const longName = `layer-${"x".repeat(1_000_000)}-end`;

function traceWithLongName(): TraceDocument {
  let time = 0;
  const clock = {
    now() {
      time += 1000;
      return time;
    },
  };
  const session = TraceSessionCore.inMemory(ProfileRun.training("train", 1, "cpu").fields(), {
    clock,
    runId: "long-name",
    timestamp: "2025-08-04T18:00:00.000Z",
  });
  const measured = session.beginMeasurement("step");
  const span = session.beginStepSpan(longName, "forward");
  session.recordOp(span, {
    opName: longName,
    output: "y",
    shape: [4],
    dtype: "f32",
    device: "cpu",
    durationNs: 400,
  });
  span.end();
  measured.end();
  session.finish();
  return parseTraceText(session.sink.text());
}

const browser = browserForFile();

describe("long strings in a report", () => {
  it("keeps one full copy of a 1 MB name, also with a baseline", () => {
    const document = traceWithLongName();
    const options = { baseline: traceWithLongName() };
    const html = renderReport(document, options);
    // One full copy per distinct string that holds the name (the span name, its path, the op name,
    // the op's span path, the costliest-operator finding), however many views show them; it was
    // 40 MB before (117 with a baseline).
    const payload = buildReportPayload(document, options);
    const fullValues = Object.values(payload.full_strings ?? {});
    expect(fullValues).toContain(longName);
    expect(fullValues.length).toBeLessThanOrEqual(5);
    expect(html.length).toBeLessThan(fullValues.reduce((sum, value) => sum + value.length, 0) + 400_000);
    const cut = Object.keys(payload.full_strings ?? {}).find((key) => key.startsWith("layer-"))!;
    expect(cut).toMatch(/^layer-x+… \(\+\d+ characters\)$/);
    expect(cut.length).toBeLessThan(230);
  });

  it("shows the cut name and reveals the full value on click", async () => {
    const { page, problems } = await openReport(browser(), renderReport(traceWithLongName()), "long-name");
    await showView(page, "spans");
    const cut = page.locator("#panel-spans button.cut-string").first();
    await expect(cut.textContent()).resolves.toMatch(/… \(\+\d+ characters\)$/);
    await cut.click();
    const full = await page.locator("#panel-spans .full-string").first().textContent();
    expect(full?.length).toBeGreaterThanOrEqual(longName.length);
    expect(full).toContain(longName);
    expect(problems).toEqual([]);
  });
});
