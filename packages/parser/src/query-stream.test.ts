// Every streamed query kind against the whole-document result, on every shared fixture that parses.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import {
  analyzeHealth,
  type OperatorGroupField,
  operatorTable,
  parseTrace,
  QUERY_KINDS,
  queryTrace,
  queryTraceStream,
  RowSource,
  type StreamedQueryKind,
  type TraceDocument,
} from "./index.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string; expect: string }[];
};
const accepted = manifest.fixtures.filter((entry) => entry.expect !== "parse_error");

/** The streamed result with every RowSource read into an array. */
export async function materialize(result: object): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    out[key] = value instanceof RowSource ? await value.toArray() : value;
  }
  return out;
}

async function documentOf(path: string): Promise<TraceDocument | undefined> {
  try {
    return await parseTrace(path);
  } catch {
    return undefined; // refused fixtures are the reader's tests
  }
}

const GROUPINGS: OperatorGroupField[][] = [
  [],
  ["path"],
  ["shape", "dtype"],
  ["shape", "dtype", "device", "path"],
];

describe("queryTraceStream equals queryTrace", () => {
  it.each(accepted.map((entry) => [entry.file] as const))("%s", async (file) => {
    const path = join(fixturesDir, file);
    const document = await documentOf(path);
    if (document === undefined) return;
    const health = analyzeHealth(document);
    for (const limit of [1, 3, 50]) {
      for (const kind of QUERY_KINDS) {
        const streamed = await queryTraceStream(() => path, kind, { limit });
        expect(streamed.health).toStrictEqual(health);
        expect(streamed.exact).toBe(true);
        expect(await materialize(streamed.result)).toStrictEqual(queryTrace(document, kind, { limit }));
      }
      for (const groupBy of GROUPINGS) {
        const streamed = await queryTraceStream(() => path, "ops" satisfies StreamedQueryKind, {
          limit,
          groupBy,
        });
        expect(streamed.result).toStrictEqual(operatorTable(document, { groupBy, limit }));
      }
    }
  });

  it("reads a RowSource again from the start each time", async () => {
    const file =
      accepted.find((entry) => entry.file.includes("valid"))?.file ?? (accepted[0]?.file as string);
    const path = join(fixturesDir, file);
    const streamed = await queryTraceStream(() => path, "tensors");
    const first = await streamed.result.tensors.toArray();
    expect(await streamed.result.tensors.toArray()).toStrictEqual(first);
    expect(first).toHaveLength(streamed.result.tensors.count);
    expect(() => JSON.stringify(streamed.result)).toThrow(/RowSource/);
  });
});
