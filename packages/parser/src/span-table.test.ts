// The span table when the reader interns span ids ahead of the fold (the column reader checks a
// whole batch before the summary folds it): a parent whose id is known but whose span has not
// started yet is missing, as it is in file order, until the parents are resolved.
import { describe, expect, it } from "vitest";
import { IdTable } from "./id-table.js";
import { MISSING_PARENT, SpanTable } from "./span-table.js";

function start(id: string, parent?: string) {
  return {
    kind: "span_start" as const,
    id,
    name: id,
    start_ns: 0,
    span_kind: "function" as const,
    measured: false,
    ...(parent === undefined ? {} : { parent_id: parent }),
  };
}

describe("SpanTable", () => {
  it("takes a parent interned ahead of the fold as missing until it started", () => {
    const ids = new IdTable();
    // The reader saw the child's start, then its parent's, before either was folded.
    ids.intern("child");
    ids.intern("parent");
    const table = new SpanTable(ids);
    table.start(0, start("child", "parent"));
    expect(table.parent(0)).toBe(MISSING_PARENT);
    table.start(1, start("parent"));
    table.resolveParents();
    expect(table.parent(0)).toBe(1);
  });

  it("links a parent that started before its child", () => {
    const ids = new IdTable();
    ids.intern("parent");
    ids.intern("child");
    const table = new SpanTable(ids);
    table.start(0, start("parent"));
    table.start(1, start("child", "parent"));
    expect(table.parent(1)).toBe(0);
  });
});
