import fc from "fast-check";
import stringWidth from "string-width";
import { afterEach, describe, expect, it } from "vitest";
import {
  displayWidth,
  ellipsizeMiddle,
  ONE_COLUMN_TEXT,
  renderTable,
  setTableWidth,
  truncateToWidth,
} from "./table.js";

const lineWidths = (table: string): number[] =>
  table
    .trimEnd()
    .split("\n")
    .map((line) => stringWidth(line));

const OPERATOR_COLUMNS = [
  { header: "op" },
  { header: "calls", align: "right" as const },
  { header: "total", align: "right" as const },
  { header: "mean", align: "right" as const },
  { header: "min", align: "right" as const },
  { header: "p50", align: "right" as const },
  { header: "p95", align: "right" as const },
  { header: "max", align: "right" as const },
  { header: "% measured", align: "right" as const },
];
const OPERATOR_ROWS = [
  [
    "自注意力/多头注意力/矩阵乘法",
    "1200",
    "1.234 s",
    "1.028 ms",
    "980.1 µs",
    "1.001 ms",
    "1.412 ms",
    "9.876 ms",
    "61.2%",
  ],
  [
    "model/encoder/layer.11/attention/self/query/MatMul",
    "96",
    "80.12 ms",
    "834.6 µs",
    "801.2 µs",
    "830.0 µs",
    "902.3 µs",
    "1.203 ms",
    "4.0%",
  ],
];

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

  it("fits a narrow terminal: names shortened in the middle, then trailing columns left out and named", () => {
    setTableWidth(60);
    const table = renderTable(OPERATOR_COLUMNS, OPERATOR_ROWS);
    for (const width of lineWidths(table)) expect(width).toBeLessThanOrEqual(60);
    const [header, , chinese, english, note] = table.trimEnd().split("\n");
    // The first columns stay, whole numbers and all; the last ones go, and the note says which.
    expect(header!.trim().split(/\s+/)).toEqual(["op", "calls", "total", "mean", "min"]);
    expect(note).toBe("  (left out to fit 60 columns: p50, p95, max, % measured)");
    // A CJK name is cut between characters (two columns each), keeping its start and its end.
    expect(chinese).toBe("  自注意力/…力/矩阵乘法   1200   1.234 s  1.028 ms  980.1 µs");
    expect(english).toBe("  model/enco…ery/MatMul     96  80.12 ms  834.6 µs  801.2 µs");
  });

  it("leaves out the lowest-priority columns first, and never more than needed", () => {
    const columns = OPERATOR_COLUMNS.map((column) =>
      ["total", "% measured"].includes(column.header) ? { ...column, priority: 2 } : column,
    );
    const headers = (width: number): string[] => {
      setTableWidth(width);
      const table = renderTable(columns, OPERATOR_ROWS);
      for (const line of lineWidths(table)) expect(line).toBeLessThanOrEqual(width);
      return table
        .split("\n")[0]!
        .trim()
        .split(/\s{2,}/);
    };
    // indent 2 + op cut to 12 + calls 5 + total 8 + "% measured" 10 + three gaps of 2 = 43.
    expect(headers(42)).toEqual(["op", "total", "% measured"]);
    expect(headers(43)).toEqual(["op", "calls", "total", "% measured"]);
    expect(headers(52)).toEqual(["op", "calls", "total", "% measured"]);
    expect(headers(53)).toEqual(["op", "calls", "total", "mean", "% measured"]);
  });

  it("every line fits any width when at least one column can, for any cells (fast-check)", () => {
    const cell = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom("矩阵乘法", "🚀 launch", "注意力/多头", "👩‍👩‍👧", "e\u0301"),
    );
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 6 })
          .chain((count) =>
            fc.tuple(
              fc.array(fc.boolean(), { minLength: count, maxLength: count }),
              fc.array(fc.array(cell, { minLength: count, maxLength: count }), { maxLength: 5 }),
              fc.integer({ min: 20, max: 100 }),
            ),
          ),
        ([rightAligned, rows, width]) => {
          const columns = rightAligned.map((right, index) => ({
            header: `c${index}`,
            ...(right ? { align: "right" as const } : {}),
          }));
          // Numbers are never cut, so a right-aligned cell wider than the terminal cannot fit.
          const numbersFit = rows.every((row) =>
            row.every((value, index) => !rightAligned[index] || stringWidth(value) <= width - 2),
          );
          setTableWidth(width);
          const table = renderTable(columns, rows);
          if (numbersFit) for (const line of lineWidths(table)) expect(line).toBeLessThanOrEqual(width);
          expect(table.split("\n").length - 1).toBeGreaterThanOrEqual(rows.length + 2);
        },
      ),
    );
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

describe("displayWidth and ellipsizeMiddle", () => {
  it("agrees with string-width, also on the ASCII fast path", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        expect(displayWidth(text)).toBe(stringWidth(text));
      }),
    );
    expect(displayWidth("matmul 1.2 ms")).toBe(13);
    expect(displayWidth("矩阵")).toBe(4);
  });

  it("takes a character as one column without string-width only where string-width says so", () => {
    const oneColumn: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const character = String.fromCharCode(code);
      if (ONE_COLUMN_TEXT.test(character)) oneColumn.push(character);
    }
    // The fast path covers the units and signs the CLI prints, and not ©, ® or the soft hyphen.
    for (const sign of ["µ", "…", "·", "→", "−", "×", "—", "é"]) expect(oneColumn).toContain(sign);
    for (const wider of ["©", "®", "\u00ad", "\u0301", "↔", "中"]) expect(oneColumn).not.toContain(wider);
    expect(oneColumn.filter((character) => stringWidth(character) !== 1)).toEqual([]);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...oneColumn), { maxLength: 30 }), (characters) => {
        const text = characters.join("");
        expect(displayWidth(text)).toBe(stringWidth(text));
      }),
    );
  });

  it("keeps both ends within the width", () => {
    expect(ellipsizeMiddle("encoder/layer.11/attention/MatMul", 15)).toBe("encoder…/MatMul");
    expect(ellipsizeMiddle("模型模型模型模型", 9)).toBe("模型…模型");
    expect(ellipsizeMiddle("short", 5)).toBe("short");
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.integer({ min: 1, max: 40 }), (text, width) => {
        expect(stringWidth(ellipsizeMiddle(text, width))).toBeLessThanOrEqual(width);
      }),
    );
  });
});

describe("truncateToWidth", () => {
  it("never splits a wide character or emoji", () => {
    expect(truncateToWidth("模型模型模型", 5)).toBe("模型…");
    expect(stringWidth(truncateToWidth("👩‍👩‍👧 family", 4))).toBeLessThanOrEqual(4);
  });
});
