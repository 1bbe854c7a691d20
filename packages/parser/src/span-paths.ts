// The span paths that operator rows are grouped by ("train/step/forward"), computed from the
// streaming summary's span table (no second table is built) and cached per row as interned strings.
import { IdTable } from "./id-table.js";
import { MISSING_PARENT, NO_PARENT, type SpanTable } from "./span-table.js";

/** Path cache column: not computed yet. */
const UNKNOWN_PATH = -1;

export class SpanPaths {
  #table: SpanTable | undefined;
  readonly #paths = new IdTable();
  /** The interned paths as strings, shared by every operator row of that path. */
  readonly #pathStrings: string[] = [];
  #pathOfRow = new Int32Array(1024).fill(UNKNOWN_PATH);
  #complete = false;

  /** The table the paths come from (the summary's, handed over before the first event). */
  use(table: SpanTable): void {
    this.#table = table;
  }

  get table(): SpanTable {
    if (this.#table === undefined) throw new Error("span paths: no span table yet");
    return this.#table;
  }

  /** Call once every span is in: parents named before their span started are linked. */
  complete(): void {
    this.table.resolveParents();
    this.#complete = true;
  }

  /**
   * Names from the topmost ancestor down to the span, joined with `/`, as `operatorTable` groups by
   * path: an id that names no span stands for itself and ends the walk, a cycle ends it too. Before
   * `complete`, undefined when the answer could still change (the span or an ancestor's parent has
   * not started yet).
   */
  pathOf(spanId: string): string | undefined {
    const table = this.table;
    let start = table.ids.get(spanId);
    // An id the reader interned but whose span is not in the table yet has not started.
    if (start >= table.size) start = -1;
    if (start < 0) return this.#complete ? spanId : undefined;
    if (start < this.#pathOfRow.length && this.#pathOfRow[start] !== UNKNOWN_PATH) {
      return this.#pathStrings[this.#pathOfRow[start] as number] as string;
    }
    const names: string[] = [];
    const seen = new Set<number>();
    for (let row = start; row >= 0 && !seen.has(row); ) {
      seen.add(row);
      names.push(table.name(row));
      const parent = table.parent(row);
      if (parent === MISSING_PARENT) {
        if (!this.#complete) return undefined;
        names.push(table.missingParents.get(row) as string);
        break;
      }
      row = parent === NO_PARENT ? -1 : parent;
    }
    const path = names.reverse().join("/");
    const index = this.#paths.intern(path);
    if (index === this.#pathStrings.length) this.#pathStrings.push(path);
    this.#cache(start, index);
    return this.#pathStrings[index] as string;
  }

  #cache(row: number, index: number): void {
    if (row >= this.#pathOfRow.length) {
      let capacity = this.#pathOfRow.length * 2;
      while (capacity <= row) capacity *= 2;
      const grown = new Int32Array(capacity).fill(UNKNOWN_PATH);
      grown.set(this.#pathOfRow);
      this.#pathOfRow = grown;
    }
    this.#pathOfRow[row] = index;
  }
}
