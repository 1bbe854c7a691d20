import type { HealthReport } from "@cg/parser";
import { escapeControl } from "../format/escape-control.js";
import type { Style } from "../format/style.js";

/** `Health: TRUSTED` / `UNTRUSTED` with one line per issue. */
export function renderHealth(health: HealthReport, style: Style): string {
  const errors = health.issues.filter((issue) => issue.severity === "error").length;
  const warnings = health.issues.length - errors;
  const verdict = health.trusted ? style.good("TRUSTED") : style.bad("UNTRUSTED");
  const lines = [`${style.bold("Health")}: ${verdict} (${errors} error(s), ${warnings} warning(s))`];
  for (const issue of health.issues) {
    const label = issue.severity === "error" ? style.bad("error") : style.warn("warning");
    lines.push(`  ${label} ${issue.code}: ${escapeControl(issue.message)}`);
  }
  return `${lines.join("\n")}\n`;
}
