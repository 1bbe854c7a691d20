// File paths handed to DuckDB's readers, which treat `*`, `?` and `[` in any path as a glob. A
// literal path keeps its meaning when each of them is a one-character class (`[*]`); DuckDB has
// no other escape, and its globbing splits a pattern at `\`, so a path with both a `\` and one of
// those characters cannot be named at all: refused rather than read as something else.
import { SqlError } from "./sql-error.js";
import { quoteLiteral } from "./tables.js";

const GLOB_CHAR = /[*?[]/;

/** `path` as a DuckDB string literal that names exactly that file. */
export function literalPathSql(path: string): string {
  if (!GLOB_CHAR.test(path)) return quoteLiteral(path);
  if (path.includes("\\")) {
    throw new SqlError({
      message: `${path}: DuckDB cannot read a path holding both \\ and one of * ? [ (rename the folder)`,
      code: "dataset_layout",
      file: path,
    });
  }
  return quoteLiteral(path.replace(/[*?[]/g, (char) => `[${char}]`));
}
