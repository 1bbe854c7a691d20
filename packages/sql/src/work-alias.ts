// DuckDB reads `?` in a database path as the start of URL options (and resolves links in it), and
// `*`, `?`, `[` in a COPY target as glob syntax, with no escape for either. When the dataset's
// path holds such a character, the work database goes to a temporary folder of a plain name, and
// DuckDB writes the Parquet files into the work folder through a symbolic link from there.
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const DUCKDB_SPECIAL = /[?*[\\#]/;

export interface WorkPaths {
  /** Folder of the work database and its spill files. */
  database: string;
  /** The work folder, as DuckDB is to name it in COPY targets. */
  out: string;
  /** Removes the temporary folder, if one was made. */
  release: () => Promise<void>;
}

export async function duckdbPathsOf(work: string): Promise<WorkPaths> {
  if (!DUCKDB_SPECIAL.test(work)) return { database: work, out: work, release: async () => undefined };
  const holder = await mkdtemp(join(tmpdir(), "cg-export-"));
  const alias = join(holder, "work");
  await symlink(work, alias, "dir");
  return { database: holder, out: alias, release: () => rm(holder, { recursive: true, force: true }) };
}
