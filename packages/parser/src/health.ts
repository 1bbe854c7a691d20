// Structural trust of a document (spec §12): the health of its stream, in the emission order of
// §12.1, plus the one check only a document built in memory can fail (repeated span ids).

import { documentSummary } from "./document-summary.js";
import { type HealthOptions, type HealthReport, healthError } from "./health-issue.js";
import type { TraceDocument } from "./trace-document.js";

export type {
  HealthCoverage,
  HealthIssue,
  HealthOptions,
  HealthReport,
  HealthSeverity,
} from "./health-issue.js";

/** Computes the health of a document: trusted flag, issues in reference order, coverage. */
export function analyzeHealth(document: TraceDocument, options: HealthOptions = {}): HealthReport {
  return documentHealth(document, documentSummary(document, options).health);
}

/**
 * The health of a document from that of its stream. Step 1 of §12.1 is the document's own: a reader
 * keeps the first `span_start` of an id, but a document built in memory may hold two records of
 * one id (its stream carries the first one).
 */
export function documentHealth(document: TraceDocument, health: HealthReport): HealthReport {
  const records = document.spans.length;
  const unique = health.coverage.spans;
  if (records === unique) return health;
  const issue = healthError(
    "duplicate_span_id",
    `span IDs must be unique; found ${records} records but ${unique} unique IDs`,
  );
  return {
    trusted: false,
    issues: [issue, ...health.issues],
    coverage: { ...health.coverage, spans: records },
  };
}
