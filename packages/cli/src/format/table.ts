import { createRequire } from "node:module";
import type stringWidthFunction from "string-width";
import { escapeControlKeepingColour } from "./escape-control.js";

export type Alignment = "left" | "right";

export interface Column {
  header: string;
  align?: Alignment;
  /**
   * How long the column stays when the table is too wide for the terminal: columns with the lowest
   * priority are left out first, the rightmost first among equals. Default: 1 for the first column,
   * 0 for the others (so the name column stays and trailing columns go first).
   */
  priority?: number;
}

// The width of the terminal tables are printed to, set once per run by runCli (undefined when
// stdout is not a terminal and COLUMNS is not set: then nothing is cut). Tables are rendered deep
// inside the views, and the width is a property of the process's output, so it is held here
// rather than passed along.
let terminalWidth: number | undefined;

/** Sets the width tables must fit (stdout's columns), or undefined for no limit. */
export function setTableWidth(width: number | undefined): void {
  terminalWidth = width !== undefined && width > 0 ? width : undefined;
}

// string-width and the grapheme segmenter are loaded on first use: most cells are one column per
// character, and loading both at start was a third of what `cg-trace` ran before its command began.
let stringWidth: typeof stringWidthFunction | undefined;
let segmenter: Intl.Segmenter | undefined;

/** The graphemes of `text`, colour codes removed. */
function graphemesOf(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return Array.from(segmenter.segment(plainText(text)), (part) => part.segment);
}

/**
 * Characters one terminal column wide each, by string-width too (a test holds every one to it):
 * printable ASCII, the Latin letters and signs (not ©, ® or the soft hyphen), dashes, "…", "·",
 * the four arrows and the minus sign. Cells made of them only, units like "µs" included, are as wide
 * as they are long.
 */
export const ONE_COLUMN_TEXT =
  /^[\x20-\x7e\u00a0-\u00a8\u00aa-\u00ac\u00af-\u02ff\u2010-\u2027\u2190-\u2193\u2212]*$/;
const SGR = /\u001b\[[0-9;]*m/g;

/** Terminal columns of `text`: CJK and emoji count two, colour codes none. */
export function displayWidth(text: string): number {
  // Most cells are one column per character: no string-width and its per-grapheme work for them.
  if (ONE_COLUMN_TEXT.test(text)) return text.length;
  // A synchronous require of the ES module (Node ≥ 20.19), from the ESM and the CJS build alike.
  stringWidth ??= (createRequire(import.meta.url)("string-width") as { default: typeof stringWidthFunction })
    .default;
  return stringWidth(text);
}

/** The graphemes of `text` that fit in `width` columns, from the start or (fromEnd) the end. */
function takeColumns(graphemes: string[], width: number, fromEnd: boolean): string {
  let used = 0;
  let count = 0;
  for (; count < graphemes.length; count += 1) {
    const segment = graphemes[fromEnd ? graphemes.length - 1 - count : count]!;
    const size = displayWidth(segment);
    if (used + size > width) break;
    used += size;
  }
  return fromEnd ? graphemes.slice(graphemes.length - count).join("") : graphemes.slice(0, count).join("");
}

const plainText = (text: string): string => (text.includes("\u001b") ? text.replace(SGR, "") : text);

/** `text` cut to at most `width` terminal columns, ending in "…" when cut. */
export function truncateToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return "";
  const graphemes = graphemesOf(text);
  return `${takeColumns(graphemes, width - 1, false)}…`;
}

/**
 * `text` cut to at most `width` terminal columns by replacing its middle with "…", so both the
 * start and the end stay (the end of a span path or file name is usually what tells rows apart).
 */
export function ellipsizeMiddle(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return "";
  const graphemes = graphemesOf(text);
  const room = width - 1;
  const head = takeColumns(graphemes, Math.ceil(room / 2), false);
  const tail = takeColumns(graphemes, room - displayWidth(head), true);
  return `${head}…${tail}`;
}

/** Narrowest a text column is cut to before columns are left out. */
const MIN_TEXT_COLUMN = 12;
/** Narrowest a text column is cut to when even the kept columns do not fit. */
const LAST_RESORT_TEXT_COLUMN = 4;
const GAP = 2;

/** `widths` with the widest text (left-aligned) columns narrowed, none below `floor`, to fit `limit`. */
function narrowText(widths: number[], columns: Column[], limit: number, floor: number): number[] {
  const fitted = [...widths];
  let excess = fitted.reduce((sum, width) => sum + width, 0) - limit;
  while (excess > 0) {
    let widest = -1;
    for (let index = 0; index < fitted.length; index += 1) {
      if (columns[index]?.align === "right" || fitted[index]! <= floor) continue;
      if (widest < 0 || fitted[index]! > fitted[widest]!) widest = index;
    }
    if (widest < 0) break; // numbers are never cut
    fitted[widest]! -= 1;
    excess -= 1;
  }
  return fitted;
}

interface Layout {
  /** Indices of the columns shown, in table order. */
  shown: number[];
  /** Width of each shown column. */
  widths: number[];
}

const priorityOf = (columns: Column[], index: number): number =>
  columns[index]?.priority ?? (index === 0 ? 1 : 0);

/**
 * The columns and widths that fit `limit` terminal columns: text columns narrow first (down to
 * MIN_TEXT_COLUMN), then the lowest-priority columns are left out one at a time (each time the
 * text columns get back what they can use), and only when a single column is left do text
 * columns narrow further. Numbers are never cut.
 */
function fitLayout(natural: number[], columns: Column[], limit: number, indent: number): Layout {
  const shown = natural.map((_, index) => index);
  const budget = (count: number): number => limit - indent - GAP * (count - 1);
  const fits = (widths: number[]): boolean =>
    widths.reduce((sum, width) => sum + width, 0) <= budget(widths.length);
  for (;;) {
    const shownColumns = shown.map((index) => columns[index]!);
    const widths = narrowText(
      shown.map((index) => natural[index]!),
      shownColumns,
      budget(shown.length),
      MIN_TEXT_COLUMN,
    );
    if (fits(widths)) return { shown, widths };
    if (shown.length === 1) {
      return {
        shown,
        widths: narrowText(widths, shownColumns, budget(shown.length), LAST_RESORT_TEXT_COLUMN),
      };
    }
    let drop = shown.length - 1;
    for (let position = shown.length - 1; position >= 0; position -= 1) {
      if (priorityOf(columns, shown[position]!) < priorityOf(columns, shown[drop]!)) drop = position;
    }
    shown.splice(drop, 1);
  }
}

/** `text` broken at spaces into lines of at most `width` columns, each after `indent`. */
function wrapWords(text: string, width: number, indent: string): string[] {
  const room = Math.max(1, width - displayWidth(indent));
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    const joined = line === "" ? word : `${line} ${word}`;
    if (line !== "" && displayWidth(joined) > room) {
      lines.push(line);
      line = word;
    } else line = joined;
  }
  lines.push(line);
  return lines.map((part) => indent + truncateToWidth(part, room));
}

/** A column with the text each row puts in it: the header and its value are declared together. */
export interface CellColumn<Row> extends Column {
  cell: (row: Row) => string;
}

/** `renderTable` of `rows`, each row's cells taken from the columns' `cell`. */
export function renderColumns<Row>(columns: CellColumn<Row>[], rows: readonly Row[], indent = "  "): string {
  return renderTable(
    columns,
    rows.map((row) => columns.map((column) => column.cell(row))),
    indent,
  );
}

/**
 * A plain text table: header, a rule, and rows; numbers are usually right-aligned. Widths count
 * terminal columns (CJK and emoji take two) and control characters in cells are escaped. On a
 * terminal every line fits its width: long text is shortened in the middle with "…", and when
 * that is not enough the lowest-priority columns are left out, named in a line under the table.
 */
export function renderTable(columns: Column[], rows: string[][], indent = "  "): string {
  const cells = rows.map((row) => columns.map((_, index) => escapeControlKeepingColour(row[index] ?? "")));
  const natural = columns.map((column) => displayWidth(column.header));
  for (const row of cells) {
    for (let index = 0; index < row.length; index += 1) {
      const width = displayWidth(row[index]!);
      if (width > natural[index]!) natural[index] = width;
    }
  }
  const layout: Layout =
    terminalWidth === undefined
      ? { shown: natural.map((_, index) => index), widths: natural }
      : fitLayout(natural, columns, terminalWidth, displayWidth(indent));
  const renderRow = (row: string[]): string =>
    indent +
    layout.shown
      .map((columnIndex, position) => {
        const width = layout.widths[position]!;
        const cell = ellipsizeMiddle(row[columnIndex] ?? "", width);
        const padding = " ".repeat(Math.max(0, width - displayWidth(cell)));
        return columns[columnIndex]!.align === "right" ? padding + cell : cell + padding;
      })
      .join(" ".repeat(GAP))
      .trimEnd();
  const rule = indent + layout.widths.map((width) => "-".repeat(width)).join(" ".repeat(GAP));
  const lines = [renderRow(columns.map((column) => column.header)), rule];
  for (const row of cells) lines.push(renderRow(row));
  if (layout.shown.length < columns.length) {
    const left = columns.filter((_, index) => !layout.shown.includes(index)).map((column) => column.header);
    const note = `(left out to fit ${terminalWidth} columns: ${left.join(", ")})`;
    for (const noteLine of wrapWords(note, terminalWidth!, indent)) lines.push(noteLine);
  }
  return `${lines.join("\n")}\n`;
}

/** `key: value` lines with the keys padded to one width. */
export function renderFacts(facts: [string, string][], indent = "  "): string {
  let width = 0;
  for (const [key] of facts) width = Math.max(width, displayWidth(key));
  return facts
    .map(
      ([key, value]) =>
        `${indent}${key}:${" ".repeat(width + 1 - displayWidth(key))}${escapeControlKeepingColour(value)}\n`,
    )
    .join("");
}
