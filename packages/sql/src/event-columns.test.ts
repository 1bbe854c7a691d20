import { EVENT_KINDS, EVENT_LAYOUTS, type EventLayout } from "@cg/schema";
import { describe, expect, test } from "vitest";
import { columnsOfEvent, SQL_TYPE_OF_WIRE } from "./event-columns.js";
import { TABLE_OF_KIND, TABLES } from "./tables.js";

describe("event tables follow @cg/schema's wire layout", () => {
  test("every event kind but span_end has one table", () => {
    expect(TABLES.map((table) => table.kind).sort()).toEqual(
      EVENT_KINDS.filter((kind) => kind !== "span_end").sort(),
    );
    for (const table of TABLES) expect(TABLE_OF_KIND[table.kind]).toBe(table.name);
  });

  test.each(TABLES.map((table) => [table.kind, table.name] as const))("%s → %s", (kind, tableName) => {
    const layout = EVENT_LAYOUTS[kind];
    const table = TABLES.find((candidate) => candidate.name === tableName);
    const wireColumns = table?.columns.filter((column) => column.key !== undefined) ?? [];
    // run_id leads every table (the runs table's is the meta's own).
    const fields = layout.fields.filter((field) => field.key !== "run_id");
    expect(wireColumns.map((column) => column.name)).toEqual(fields.map((field) => field.key));
    for (const field of fields) {
      const column = wireColumns.find((candidate) => candidate.key === field.key);
      expect(column?.type, field.key).toBe(SQL_TYPE_OF_WIRE[field.type]);
      // storage_bytes is resolved by the reader (spec §15.4), so it is never NULL in the tables.
      const nullable = field.presence === "optional" && field.key !== "storage_bytes";
      expect(column?.nullable, field.key).toBe(nullable);
    }
  });

  test("span_end's duration is a spans column; every table leads with run_id", () => {
    const spans = TABLES.find((table) => table.name === "spans");
    expect(spans?.columns.find((column) => column.name === "duration_ns")?.type).toBe("UBIGINT");
    for (const table of TABLES) expect(table.columns[0]?.name).toBe("run_id");
  });

  test("a field added to a layout becomes a column", () => {
    const grown: EventLayout = {
      kind: "edge",
      fields: [
        ...EVENT_LAYOUTS.edge.fields,
        { key: "stream", type: "u64", presence: "optional", null: "absent" },
        { key: "labels", type: "string_map", presence: "defaulted", default: [], null: "rejected" },
      ],
    };
    expect(columnsOfEvent(grown).slice(-2)).toEqual([
      { name: "stream", type: "UBIGINT", nullable: true, source: "wire `stream`", key: "stream" },
      {
        name: "labels",
        type: "MAP(VARCHAR, VARCHAR)",
        nullable: false,
        source: "wire `labels`",
        key: "labels",
      },
    ]);
  });
});
