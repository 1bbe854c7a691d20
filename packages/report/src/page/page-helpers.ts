// Runs in the report page, not in Node: `createPageHelpers` is inlined into the HTML through its
// source text, so it must not reference anything outside its own body (types are erased).
import type { ExactNumber } from "../exact-number.js";

export interface TableColumn<Row> {
  label: string;
  /** Text shown in the cell; always set with textContent. */
  text: (row: Row) => string;
  /** Sort key; columns without one are not sortable. */
  sortKey?: (row: Row) => number | string;
  numeric?: boolean;
  className?: (row: Row) => string;
  /** Tooltip of the cell (its title attribute), e.g. an operator's shapes and dtypes. */
  title?: (row: Row) => string;
}

export interface TableOptions<Row> {
  caption: string;
  initialSort?: number;
  initialDescending?: boolean;
  filterLabel?: string;
  filterText?: (row: Row) => string;
}

export interface PageHelpers {
  element: <Tag extends keyof HTMLElementTagNameMap>(
    tag: Tag,
    attributes?: Record<string, string>,
    children?: Array<Node | string>,
  ) => HTMLElementTagNameMap[Tag];
  svg: (tag: string, attributes?: Record<string, string>) => SVGElement;
  toNumber: (value: ExactNumber | null | undefined) => number;
  toBigInt: (value: ExactNumber) => bigint;
  groupDigits: (value: ExactNumber) => string;
  formatBytes: (value: ExactNumber) => string;
  formatDuration: (nanoseconds: ExactNumber) => string;
  formatSignedDuration: (nanoseconds: ExactNumber) => string;
  formatSignedBytes: (value: ExactNumber) => string;
  table: <Row>(columns: Array<TableColumn<Row>>, rows: Row[], options: TableOptions<Row>) => HTMLElement;
  textColumn: <Row>(label: string, pick: (row: Row) => string) => TableColumn<Row>;
  numberColumn: <Row>(
    label: string,
    pick: (row: Row) => ExactNumber,
    format: (value: ExactNumber) => string,
  ) => TableColumn<Row>;
  cssColor: (name: string) => string;
  note: (text: string) => HTMLElement;
  partNote: (
    into: Array<Node | string>,
    shown: number,
    total: number,
    text: string,
  ) => HTMLElement | undefined;
  tile: (label: string, value: string, detail: string, testId: string) => HTMLElement;
  section: (title: string, children: Array<Node | string>) => HTMLElement;
}

export function createPageHelpers(): PageHelpers {
  // Read the SVG namespace from the parser rather than spelling it, so the page holds no URL at all.
  const probe = document.createElement("div");
  probe.innerHTML = "<svg></svg>";
  const svgNamespace = probe.firstElementChild?.namespaceURI ?? null;

  function element<Tag extends keyof HTMLElementTagNameMap>(
    tag: Tag,
    attributes?: Record<string, string>,
    children?: Array<Node | string>,
  ): HTMLElementTagNameMap[Tag] {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes ?? {})) node.setAttribute(name, value);
    for (const child of children ?? []) {
      // Strings become text nodes: trace text is never parsed as markup.
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function svg(tag: string, attributes?: Record<string, string>): SVGElement {
    const node = document.createElementNS(svgNamespace, tag) as SVGElement;
    for (const [name, value] of Object.entries(attributes ?? {})) node.setAttribute(name, value);
    return node;
  }

  function toNumber(value: ExactNumber | null | undefined): number {
    if (value === null || value === undefined) return 0;
    return typeof value === "number" ? value : Number(value);
  }

  function toBigInt(value: ExactNumber): bigint {
    if (typeof value === "string") return BigInt(value);
    return Number.isInteger(value) ? BigInt(value) : BigInt(Math.round(value));
  }

  function groupDigits(value: ExactNumber): string {
    const digits = typeof value === "number" && !Number.isInteger(value) ? String(value) : String(value);
    const negative = digits.startsWith("-");
    const body = negative ? digits.slice(1) : digits;
    const dot = body.indexOf(".");
    const integral = dot < 0 ? body : body.slice(0, dot);
    const fraction = dot < 0 ? "" : body.slice(dot);
    const grouped = integral.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return (negative ? "-" : "") + grouped + fraction;
  }

  function scaled(value: number, units: string[], base: number): string {
    let magnitude = Math.abs(value);
    let unit = 0;
    while (magnitude >= base && unit < units.length - 1) {
      magnitude /= base;
      unit += 1;
    }
    const digits = unit === 0 ? 0 : magnitude >= 100 ? 1 : 2;
    return (value < 0 ? "-" : "") + magnitude.toFixed(digits) + " " + units[unit];
  }

  function formatBytes(value: ExactNumber): string {
    return scaled(toNumber(value), ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"], 1024);
  }

  function formatDuration(nanoseconds: ExactNumber): string {
    const value = toNumber(nanoseconds);
    const magnitude = Math.abs(value);
    if (magnitude < 1000) return groupDigits(nanoseconds) + " ns";
    if (magnitude < 1e6) return (value / 1e3).toFixed(3) + " µs";
    if (magnitude < 1e9) return (value / 1e6).toFixed(3) + " ms";
    return (value / 1e9).toFixed(3) + " s";
  }

  function formatSignedDuration(nanoseconds: ExactNumber): string {
    const value = toNumber(nanoseconds);
    return (value > 0 ? "+" : "") + formatDuration(nanoseconds);
  }

  function formatSignedBytes(value: ExactNumber): string {
    return (toNumber(value) > 0 ? "+" : "") + formatBytes(value);
  }

  function table<Row>(
    columns: Array<TableColumn<Row>>,
    rows: Row[],
    options: TableOptions<Row>,
  ): HTMLElement {
    const wrapper = element("div", { class: "table-wrap" });
    const tableNode = element("table", {}, [element("caption", {}, [options.caption])]);
    const headRow = element("tr");
    const body = element("tbody");
    let sortColumn = options.initialSort ?? -1;
    let descending = options.initialDescending ?? true;
    let filter = "";
    const headers: HTMLTableCellElement[] = [];

    function compareKeys(left: number | string, right: number | string): number {
      if (typeof left === "number" && typeof right === "number") return left - right;
      return String(left).localeCompare(String(right));
    }

    function draw(): void {
      const column = columns[sortColumn];
      let visible = rows;
      const textOf = options.filterText;
      if (filter !== "" && textOf) {
        const needle = filter.toLowerCase();
        visible = rows.filter((row) => textOf(row).toLowerCase().includes(needle));
      }
      if (column?.sortKey) {
        const key = column.sortKey;
        visible = visible.slice().sort((a, b) => compareKeys(key(a), key(b)) * (descending ? -1 : 1));
      }
      const fragment = document.createDocumentFragment();
      for (const row of visible) {
        const tr = element("tr");
        for (const candidate of columns) {
          const cell = element("td", candidate.title ? { title: candidate.title(row) } : {}, [
            candidate.text(row),
          ]);
          if (candidate.numeric) cell.classList.add("num");
          const extra = candidate.className?.(row);
          if (extra) cell.classList.add(extra);
          tr.append(cell);
        }
        fragment.append(tr);
      }
      body.replaceChildren(fragment);
      headers.forEach((header, index) => {
        if (!columns[index]?.sortKey) return;
        header.setAttribute(
          "aria-sort",
          index === sortColumn ? (descending ? "descending" : "ascending") : "none",
        );
      });
    }

    columns.forEach((column, index) => {
      const header = element("th", { scope: "col" });
      if (column.numeric) header.classList.add("num");
      if (column.sortKey) {
        const button = element("button", { type: "button", class: "sort" }, [column.label]);
        button.addEventListener("click", () => {
          if (sortColumn === index) descending = !descending;
          else {
            sortColumn = index;
            descending = Boolean(column.numeric);
          }
          draw();
        });
        header.append(button);
      } else {
        header.append(column.label);
      }
      headers.push(header);
      headRow.append(header);
    });
    tableNode.append(element("thead", {}, [headRow]), body);
    if (options.filterText) {
      const input = element("input", {
        type: "search",
        class: "filter",
        "aria-label": options.filterLabel ?? "Filter rows",
        placeholder: options.filterLabel ?? "Filter rows",
      });
      input.addEventListener("input", () => {
        filter = input.value;
        draw();
      });
      wrapper.append(input);
    }
    wrapper.append(tableNode);
    draw();
    return wrapper;
  }

  /** A text column sorted by the text it shows. */
  function textColumn<Row>(label: string, pick: (row: Row) => string): TableColumn<Row> {
    return { label, text: pick, sortKey: pick };
  }

  /** A right-aligned column of one exact number: shown through `format`, sorted by the number. */
  function numberColumn<Row>(
    label: string,
    pick: (row: Row) => ExactNumber,
    format: (value: ExactNumber) => string,
  ): TableColumn<Row> {
    return {
      label,
      text: (row) => format(pick(row)),
      sortKey: (row) => toNumber(pick(row)),
      numeric: true,
    };
  }

  function cssColor(name: string): string {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
  }

  function note(text: string): HTMLElement {
    return element("p", { class: "note" }, [text]);
  }

  /**
   * The note for a list the report cut or sampled, appended to `into` and returned: `{shown}` and
   * `{total}` in the text become the grouped counts. None when the whole list is shown.
   */
  function partNote(
    into: Array<Node | string>,
    shown: number,
    total: number,
    text: string,
  ): HTMLElement | undefined {
    if (shown >= total) return undefined;
    const cut = note(
      text.split("{shown}").join(groupDigits(shown)).split("{total}").join(groupDigits(total)),
    );
    into.push(cut);
    return cut;
  }

  /** A headline figure: a label, the value, and a line of detail beneath. */
  function tile(label: string, value: string, detail: string, testId: string): HTMLElement {
    return element("div", { class: "tile", "data-testid": testId }, [
      element("div", { class: "tile-label" }, [label]),
      element("div", { class: "tile-value" }, [value]),
      element("div", { class: "tile-detail" }, [detail]),
    ]);
  }

  function section(title: string, children: Array<Node | string>): HTMLElement {
    return element("section", { class: "card" }, [element("h2", {}, [title]), ...children]);
  }

  return {
    element,
    svg,
    toNumber,
    toBigInt,
    groupDigits,
    formatBytes,
    formatDuration,
    formatSignedDuration,
    formatSignedBytes,
    table,
    textColumn,
    numberColumn,
    cssColor,
    note,
    partNote,
    tile,
    section,
  };
}
