// File paths handed to DuckDB's readers, which treat `*`, `?` and `[` in any path as a glob. A
// literal path keeps its meaning when each of them is a one-character class (`[*]`); DuckDB has
// no other escape, and its globbing splits a pattern at `\`, so a path with both a `\` and one of
// those characters cannot be named at all: refused rather than read as something else.
import { SqlError } from "./sql-error.js";
import { quoteLiteral } from "./tables.js";

const GLOB_CHAR = /[*?[]/;

/** `path` as a DuckDB string literal that names exactly that file. */
export function literalPathSql(path: string): string {
  return quoteLiteral(literalPathText(path));
}

/**
 * The text DuckDB is given for `path` (before quoting). Its sandbox checks this text, not the file
 * it expands to, so a readable folder is named in this form too.
 */
export function literalPathText(path: string): string {
  if (!GLOB_CHAR.test(path)) return path;
  if (path.includes("\\")) {
    throw new SqlError({
      message: `${path}: DuckDB cannot read a path holding both \\ and one of * ? [ (rename the folder)`,
      code: "dataset_layout",
      file: path,
    });
  }
  return path.replace(/[*?[]/g, (char) => `[${char}]`);
}
