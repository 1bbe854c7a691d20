export type Alignment = "left" | "right";

export interface Column {
  header: string;
  align?: Alignment;
}

// Strips ANSI colour codes so padding counts visible characters only.
const ansiPattern = /\u001b\[[0-9;]*m/g;

function visibleLength(text: string): number {
  return [...text.replace(ansiPattern, "")].length;
}

/** A plain text table: header, a rule, and rows; numbers are usually right-aligned. */
export function renderTable(columns: Column[], rows: string[][], indent = "  "): string {
  const widths = columns.map((column, index) =>
    Math.max(visibleLength(column.header), ...rows.map((row) => visibleLength(row[index] ?? ""))),
  );
  const renderRow = (cells: string[]): string =>
    indent +
    columns
      .map((column, index) => {
        const cell = cells[index] ?? "";
        const padding = " ".repeat((widths[index] ?? 0) - visibleLength(cell));
        return column.align === "right" ? padding + cell : cell + padding;
      })
      .join("  ")
      .trimEnd();
  const rule = indent + widths.map((width) => "-".repeat(width)).join("  ");
  return [renderRow(columns.map((column) => column.header)), rule, ...rows.map(renderRow)].join("\n") + "\n";
}

/** `key: value` lines with the keys padded to one width. */
export function renderFacts(facts: [string, string][], indent = "  "): string {
  const width = Math.max(0, ...facts.map(([key]) => key.length));
  return facts.map(([key, value]) => `${indent}${`${key}:`.padEnd(width + 2)}${value}\n`).join("");
}
