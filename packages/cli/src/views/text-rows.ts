// A streamed query result made small enough for a text table: lists that grow with the trace are
// cut to TEXT_ROWS rows (the memory timeline is sampled evenly instead, so its shape stays), with a
// note saying what was left out. On traces below the cap this is exactly the whole result.
import type { QueryResult, RowSource, StreamedQueryResults } from "@cg/parser";

/** Most rows of one list in a text table; `--json` writes every row. */
export const TEXT_ROWS = 10_000;

async function firstRows<T>(rows: RowSource<T>, name: string, notes: string[]): Promise<T[]> {
  const kept: T[] = [];
  if (rows.count > 0) {
    outer: for await (const batch of rows.batches()) {
      for (const row of batch) {
        if (kept.length >= TEXT_ROWS) break outer;
        kept.push(row);
      }
    }
  }
  if (rows.count > kept.length) {
    notes.push(`${name}: the first ${kept.length} of ${rows.count} shown; --json lists every one`);
  }
  return kept;
}

async function sampledRows<T>(rows: RowSource<T>, name: string, notes: string[]): Promise<T[]> {
  const step = Math.max(1, Math.ceil(rows.count / TEXT_ROWS));
  const kept: T[] = [];
  let index = 0;
  for await (const batch of rows.batches()) {
    for (const row of batch) {
      if (index % step === 0) kept.push(row);
      index++;
    }
  }
  if (step > 1) {
    notes.push(
      `${name}: every ${step}th of ${rows.count} points shown (${kept.length} rows, evenly sampled); --json lists every point`,
    );
  }
  return kept;
}

/** The result with its RowSources read into (at most TEXT_ROWS-row) arrays, and notes on any cut. */
export async function textRows(
  result: StreamedQueryResults[Exclude<keyof StreamedQueryResults, "ops">],
): Promise<{ result: QueryResult; notes: string[] }> {
  const notes: string[] = [];
  switch (result.kind) {
    case "memory":
      return {
        result: { ...result, timeline: await sampledRows(result.timeline, "timeline", notes) },
        notes,
      };
    case "spans": {
      const spans = await firstRows(result.spans, "spans", notes);
      const edges = await firstRows(result.edges, "edges", notes);
      return { result: { ...result, spans, edges }, notes };
    }
    case "tensors":
      return { result: { ...result, tensors: await firstRows(result.tensors, "tensors", notes) }, notes };
    case "gradients":
      return {
        result: { ...result, gradients: await firstRows(result.gradients, "gradients", notes) },
        notes,
      };
    default:
      return { result, notes };
  }
}
