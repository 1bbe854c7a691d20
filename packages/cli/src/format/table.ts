import stringWidth from "string-width";
import { escapeControlKeepingColour } from "./escape-control.js";

export type Alignment = "left" | "right";

export interface Column {
  header: string;
  align?: Alignment;
}

// The width of the terminal tables are printed to, set once per run by runCli (undefined when
// stdout is not a terminal: then nothing is cut). Tables are rendered deep inside the views, and
// the width is a property of the process's output, so it is held here rather than passed along.
let terminalWidth: number | undefined;

/** Sets the width tables must fit (stdout's columns), or undefined for no limit. */
export function setTableWidth(width: number | undefined): void {
  terminalWidth = width !== undefined && width > 0 ? width : undefined;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** `text` cut to at most `width` terminal columns, ending in "…" when cut. */
export function truncateToWidth(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let out = "";
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const size = stringWidth(segment);
    if (used + size > width - 1) break;
    out += segment;
    used += size;
  }
  return `${out}…`;
}

/** Narrowest a text column is cut to when the table does not fit. */
const MIN_TEXT_COLUMN = 12;

/** Column widths that fit `limit`: the widest left-aligned (text) columns give up space first. */
function fitWidths(widths: number[], columns: Column[], limit: number): number[] {
  const fitted = [...widths];
  let excess = fitted.reduce((sum, width) => sum + width, 0) - limit;
  while (excess > 0) {
    let widest = -1;
    for (let index = 0; index < fitted.length; index += 1) {
      if (columns[index]?.align === "right" || fitted[index]! <= MIN_TEXT_COLUMN) continue;
      if (widest < 0 || fitted[index]! > fitted[widest]!) widest = index;
    }
    if (widest < 0) break; // numbers are never cut: the table stays wider than the terminal
    fitted[widest]! -= 1;
    excess -= 1;
  }
  return fitted;
}

/**
 * A plain text table: header, a rule, and rows; numbers are usually right-aligned. Widths count
 * terminal columns (CJK and emoji take two), control characters in cells are escaped, and on a
 * terminal the text columns are cut with "…" so every line fits.
 */
export function renderTable(columns: Column[], rows: string[][], indent = "  "): string {
  const cells = rows.map((row) => columns.map((_, index) => escapeControlKeepingColour(row[index] ?? "")));
  let widths = columns.map((column) => stringWidth(column.header));
  for (const row of cells) {
    for (let index = 0; index < row.length; index += 1) {
      const width = stringWidth(row[index]!);
      if (width > widths[index]!) widths[index] = width;
    }
  }
  if (terminalWidth !== undefined) {
    const chrome = indent.length + 2 * (columns.length - 1);
    widths = fitWidths(widths, columns, terminalWidth - chrome);
  }
  const renderRow = (row: string[]): string =>
    indent +
    columns
      .map((column, index) => {
        const width = widths[index] ?? 0;
        const cell = truncateToWidth(row[index] ?? "", width);
        const padding = " ".repeat(Math.max(0, width - stringWidth(cell)));
        return column.align === "right" ? padding + cell : cell + padding;
      })
      .join("  ")
      .trimEnd();
  const rule = indent + widths.map((width) => "-".repeat(width)).join("  ");
  const lines = [renderRow(columns.map((column) => column.header)), rule];
  for (const row of cells) lines.push(renderRow(row));
  return `${lines.join("\n")}\n`;
}

/** `key: value` lines with the keys padded to one width. */
export function renderFacts(facts: [string, string][], indent = "  "): string {
  let width = 0;
  for (const [key] of facts) width = Math.max(width, stringWidth(key));
  return facts
    .map(
      ([key, value]) =>
        `${indent}${key}:${" ".repeat(width + 1 - stringWidth(key))}${escapeControlKeepingColour(value)}\n`,
    )
    .join("");
}
