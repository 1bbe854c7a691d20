import { createPageHelpers } from "./page-helpers.js";
import { startPage } from "./page-main.js";
import { renderComparison } from "./view-comparison.js";
import { renderGradients } from "./view-gradients.js";
import { renderMemory } from "./view-memory.js";
import { renderOperators } from "./view-operators.js";
import { renderOverview } from "./view-overview.js";
import { renderSpanCosts } from "./view-span-costs.js";
import { renderTimeline } from "./view-timeline.js";

/**
 * The page's script. Each part is a self-contained, type-checked function whose source text is
 * inlined here; they reach each other only through parameters, never through module scope.
 */
export function pageScript(): string {
  return [
    '"use strict";',
    "(function () {",
    `  var helpers = (${createPageHelpers.toString()})();`,
    "  var views = {",
    `    overview: ${renderOverview.toString()},`,
    `    timeline: ${renderTimeline.toString()},`,
    `    spans: ${renderSpanCosts.toString()},`,
    `    operators: ${renderOperators.toString()},`,
    `    memory: ${renderMemory.toString()},`,
    `    gradients: ${renderGradients.toString()},`,
    `    comparison: ${renderComparison.toString()}`,
    "  };",
    `  (${startPage.toString()})(helpers, views);`,
    "})();",
  ].join("\n");
}
