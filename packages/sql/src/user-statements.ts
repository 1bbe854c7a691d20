// Runs what a user typed: counted with DuckDB's own statement splitter, each statement prepared and
// its type checked before it runs, DuckDB's failures turned into one-line `SqlError`s.
import { type DuckDBConnection, type DuckDBResultReader, StatementType } from "@duckdb/node-api";
import { SqlError } from "./sql-error.js";

export interface QueryOptions {
  /** Allow several `;`-separated statements, run in order; the last one's rows are returned. */
  multipleStatements?: boolean;
}

/**
 * Statement types a sandboxed query may run: reads (SELECT with WITH, VALUES, FROM-first, DESCRIBE,
 * SHOW, SUMMARIZE and table-valued PRAGMAs), EXPLAIN, and changes to the in-memory catalog. COPY,
 * EXPORT, ATTACH, DETACH, INSTALL, LOAD, SET, CALL, PREPARE/EXECUTE, transactions and VACUUM are
 * refused: the files a sandbox leaves readable (a dataset's Parquet files) must not be written.
 */
export const SANDBOX_STATEMENT_TYPES: ReadonlySet<StatementType> = new Set([
  StatementType.SELECT,
  StatementType.EXPLAIN,
  StatementType.CREATE,
  StatementType.INSERT,
  StatementType.UPDATE,
  StatementType.DELETE,
  StatementType.DROP,
  StatementType.ALTER,
]);

/** What `extractStatements` of `@duckdb/node-api` 1.5 throws for text that holds no statement. */
const NO_STATEMENT = "Error in native callback";

/** DuckDB's first line says what is wrong; the rest points into the SQL text with a caret. */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}

function queryFailed(error: unknown, statement: number, count: number): SqlError {
  const where = count > 1 ? ` (statement ${statement} of ${count})` : "";
  return new SqlError({
    message: `query failed${where}: ${firstLine(error)}`,
    code: "query_failed",
    cause: error,
  });
}

function statementName(type: StatementType): string {
  return (StatementType[type] ?? String(type)).replaceAll("_", " ");
}

/** Runs `sql`; the result of its last statement is returned. */
export async function runUserSql(
  connection: DuckDBConnection,
  sql: string,
  options: QueryOptions & { sandboxed: boolean },
): Promise<DuckDBResultReader> {
  let extracted: Awaited<ReturnType<DuckDBConnection["extractStatements"]>>;
  try {
    extracted = await connection.extractStatements(sql);
  } catch (error) {
    // Text without a statement (blank, comments, `;`) fails in the binding with no message of
    // DuckDB's; a parse error reads "Failed to extract statements: Parser Error: …".
    const text = firstLine(error);
    const message =
      text === NO_STATEMENT ? "no SQL statement given" : text.replace(/^Failed to extract statements: /, "");
    throw new SqlError({ message: `query failed: ${message}`, code: "query_failed", cause: error });
  }
  const count = extracted.count;
  if (count === 0)
    throw new SqlError({ message: "query failed: no SQL statement given", code: "query_failed" });
  if (count > 1 && options.multipleStatements !== true) {
    throw new SqlError({
      message: `query refused: ${count} statements given, one per call unless several are allowed (--allow-multiple-statements)`,
      code: "query_refused",
    });
  }
  let result: DuckDBResultReader | undefined;
  for (let index = 0; index < count; index += 1) {
    let prepared: Awaited<ReturnType<typeof extracted.prepare>>;
    try {
      prepared = await extracted.prepare(index);
    } catch (error) {
      throw queryFailed(error, index + 1, count);
    }
    if (options.sandboxed && !SANDBOX_STATEMENT_TYPES.has(prepared.statementType)) {
      const where = count > 1 ? ` (statement ${index + 1} of ${count})` : "";
      throw new SqlError({
        message:
          `query refused${where}: ${statementName(prepared.statementType)} statements are not allowed in the ` +
          "sandbox (reads, EXPLAIN and in-memory CREATE/INSERT/UPDATE/DELETE/DROP/ALTER are); " +
          "--unsafe-allow-external-access lifts it",
        code: "query_refused",
      });
    }
    try {
      result = await prepared.runAndReadAll();
    } catch (error) {
      throw queryFailed(error, index + 1, count);
    } finally {
      prepared.destroySync();
    }
  }
  return result as DuckDBResultReader;
}
