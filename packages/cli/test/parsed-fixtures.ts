import { join, relative } from "node:path";
import { acceptedFixtures, fixturesDir } from "@cg/tooling-vitest";
import { parseTrace, type TraceDocument } from "@cg/trace";
import { it } from "vitest";

/** A shared fixture as the whole-document reader gives it, with its path as a user would type it. */
export interface ParsedFixture {
  path: string;
  document: TraceDocument;
}

/**
 * An accepted fixture read whole, or undefined when the reader refuses it: such a fixture is covered
 * by the parse-error tests, so the streamed-versus-document tests pass it over.
 */
export async function parsedFixture(file: string): Promise<ParsedFixture | undefined> {
  const path = relative(process.cwd(), join(fixturesDir, file));
  try {
    return { path, document: await parseTrace(path) };
  } catch {
    return undefined;
  }
}

/** One test per accepted fixture that the whole-document reader parses (`%s` in the title is its file). */
export function itOnEveryParsedFixture(
  title: string,
  check: (fixture: ParsedFixture) => Promise<void>,
): void {
  it.each(acceptedFixtures)(title, async (file) => {
    const fixture = await parsedFixture(file);
    if (fixture !== undefined) await check(fixture);
  });
}
