import stringWidth from "string-width";
import { afterEach, describe, expect, it } from "vitest";
import { renderTable, setTableWidth, truncateToWidth } from "./table.js";

describe("renderTable", () => {
  afterEach(() => setTableWidth(undefined));

  it("aligns wide characters by terminal columns", () => {
    const table = renderTable(
      [{ header: "name" }, { header: "time", align: "right" }],
      [
        ["矩阵乘法", "1 ms"],
        ["matmul", "20 ms"],
        ["🚀 launch", "3 ms"],
      ],
    );
    const widths = table
      .trimEnd()
      .split("\n")
      .map((line) => stringWidth(line));
    expect(new Set(widths).size).toBe(1);
    expect(table).toContain("  矩阵乘法    1 ms");
  });

  it("cuts text columns with … so every line fits the terminal, never numbers", () => {
    setTableWidth(40);
    const rows = [["a/very/long/span/path/that/goes/on/and/on/forever", "123.456 ms", "99.9%"]];
    const table = renderTable(
      [{ header: "path" }, { header: "time", align: "right" }, { header: "%", align: "right" }],
      rows,
    );
    for (const line of table.trimEnd().split("\n")) expect(stringWidth(line)).toBeLessThanOrEqual(40);
    expect(table).toContain("123.456 ms");
    expect(table).toContain("…");
  });

  it("escapes control characters in cells, so a name cannot add a row", () => {
    const table = renderTable([{ header: "name" }], [["evil\nvalid, trusted"]]);
    expect(table.trimEnd().split("\n")).toHaveLength(3);
    expect(table).toContain("evil\\nvalid, trusted");
  });

  it("handles 100,000 rows (no spread of rows into a call)", () => {
    const rows = Array.from({ length: 100_000 }, (_, index) => [`op${index}`, String(index)]);
    expect(renderTable([{ header: "op" }, { header: "n", align: "right" }], rows).split("\n")).toHaveLength(
      100_003,
    );
  });
});

describe("truncateToWidth", () => {
  it("never splits a wide character or emoji", () => {
    expect(truncateToWidth("模型模型模型", 5)).toBe("模型…");
    expect(stringWidth(truncateToWidth("👩‍👩‍👧 family", 4))).toBeLessThanOrEqual(4);
  });
});
