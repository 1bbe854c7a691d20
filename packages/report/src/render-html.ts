import { createHash } from "node:crypto";
import { embedJson } from "./embed-json.js";
import { pageScript } from "./page/page-script.js";
import { pageStyle } from "./page/page-style.js";
import { pageHead } from "./page-head.js";
import type { ReportPayload } from "./report-payload.js";

/**
 * The complete, self-contained page for a payload: no external URL, script or font. The data
 * travels as inert JSON (`type="application/json"`), so nothing from the trace is ever parsed as
 * markup or code; the page builds its DOM with textContent.
 */
export function renderReportHtml(payload: ReportPayload): string {
  const script = pageScript();
  if (/<\/script|<!--/i.test(script)) throw new Error("page script must not contain a script terminator");
  const scriptHash = createHash("sha256").update(script, "utf8").digest("base64");
  return [
    // Only the page's own script (by hash) may run, and nothing may be fetched.
    ...pageHead(payload.title, pageStyle, `'sha256-${scriptHash}'`),
    '<div id="cg-report"><noscript>This report needs JavaScript to draw its views.</noscript></div>',
    `<script type="application/json" id="cg-report-data">${embedJson(payload)}</script>`,
    `<script>${script}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
