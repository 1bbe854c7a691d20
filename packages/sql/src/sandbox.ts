// Locks a DuckDB instance down for user SQL: no file or network access beyond what the database
// itself needs, no extension install or load, and settings nobody can change back.
import { sep } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { quoteLiteral } from "./tables.js";

/** What a sandboxed query may still read: files (exact paths) and folders (everything below). */
export interface SandboxScope {
  readableFiles?: readonly string[];
  readableDirectories?: readonly string[];
}

/** Extensions queries over traces and datasets use: Parquet files, JSON functions, time zones. */
const BUILT_IN_EXTENSIONS = ["parquet", "json", "icu"] as const;

function listLiteral(values: readonly string[]): string {
  return `[${values.map(quoteLiteral).join(", ")}]`;
}

/**
 * Turns external access off and locks the configuration of the whole instance (DuckDB settings
 * are global). Everything a query needs must be in place first: views, the extensions of
 * BUILT_IN_EXTENSIONS (loaded here), the database file. DuckDB keeps its own database file and
 * temp folder usable. The scope's folders get a trailing separator so that `/data/ds` does not
 * also allow `/data/ds2`. DuckDB checks a glob pattern's text against the scope before it expands
 * it, then each file it finds: a view over a pattern needs a folder in scope that the pattern's
 * text starts with; a view over a list of files needs only those files. After this, `SET`,
 * `RESET`, `PRAGMA` of a setting, `INSTALL` and `LOAD` fail.
 */
export async function lockDown(connection: DuckDBConnection, scope: SandboxScope = {}): Promise<void> {
  const directories = (scope.readableDirectories ?? []).map((dir) => (dir.endsWith(sep) ? dir : dir + sep));
  // Built into @duckdb/node-bindings (LOAD is then a no-op); after the lock nothing can be loaded.
  for (const extension of BUILT_IN_EXTENSIONS) await connection.run(`LOAD ${extension}`);
  await connection.run("SET autoinstall_known_extensions = false");
  await connection.run("SET autoload_known_extensions = false");
  await connection.run(`SET allowed_directories = ${listLiteral(directories)}`);
  await connection.run(`SET allowed_paths = ${listLiteral(scope.readableFiles ?? [])}`);
  await connection.run("SET enable_external_access = false");
  await connection.run("SET lock_configuration = true");
}
