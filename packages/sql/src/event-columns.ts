// The columns of each event table, derived from the zod object schemas of @cg/schema: a wire field
// added there becomes a column here without a second list to keep in step. Only the shape of the
// schemas is read (zod 4 keeps it in `_zod.def`), so this package needs no zod of its own.
import { U64 } from "@cg/schema";

/** SQL type of a column, as DuckDB spells it. */
export type SqlType =
  | "VARCHAR"
  | "BOOLEAN"
  | "DOUBLE"
  | "UBIGINT"
  | "UINTEGER"
  | "UBIGINT[]"
  | "VARCHAR[]"
  | "MAP(VARCHAR, VARCHAR)";

export interface Column {
  name: string;
  type: SqlType;
  /** True when the wire field is optional without a default: an absent value is NULL. */
  nullable: boolean;
  /** Where the value comes from: the wire key, or a word on how it is derived. */
  source: string;
  /** The wire key the value is read from, for columns that hold a wire field as it is. */
  key?: string;
}

interface ZodLike {
  _zod: { def: { type: string; [key: string]: unknown } };
}

interface Unwrapped {
  base: ZodLike;
  nullable: boolean;
}

function isZod(value: unknown): value is ZodLike {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/** Peels optional, nullable, default and pipe (transform) wrappers off a field schema. */
function unwrap(schema: ZodLike): Unwrapped {
  let current = schema;
  let nullable = false;
  let hasDefault = false;
  for (;;) {
    if (current === (U64 as unknown)) break;
    const def = current._zod.def;
    if (def.type === "optional" || def.type === "nullable") {
      nullable = true;
      current = def.innerType as ZodLike;
    } else if (def.type === "default" || def.type === "prefault") {
      hasDefault = true;
      current = def.innerType as ZodLike;
    } else if (def.type === "pipe") {
      const input = def.in as ZodLike;
      // `absentWhenNull` is `inner.nullish().transform(...)`: the wire type is the pipe's input.
      current = input;
    } else {
      break;
    }
  }
  return { base: current, nullable: nullable && !hasDefault };
}

function sqlTypeOf(base: ZodLike, path: string): SqlType {
  if (base === (U64 as unknown)) return "UBIGINT";
  const def = base._zod.def;
  switch (def.type) {
    case "string":
    case "enum":
      return "VARCHAR";
    case "boolean":
      return "BOOLEAN";
    case "number":
      return "DOUBLE";
    case "record":
      return "MAP(VARCHAR, VARCHAR)";
    case "array": {
      const element = unwrap(def.element as ZodLike).base;
      const inner = sqlTypeOf(element, `${path}[]`);
      if (inner === "UBIGINT") return "UBIGINT[]";
      if (inner === "VARCHAR") return "VARCHAR[]";
      break;
    }
  }
  throw new Error(`@cg/sql has no column type for the wire field ${path} (zod type ${def.type})`);
}

/**
 * The columns of one event kind's zod object schema, in wire key order, without `kind`. `rename`
 * maps a wire key to a column name where a table needs another one.
 */
export function columnsOfEvent(schema: unknown, rename: Record<string, string> = {}): Column[] {
  if (!isZod(schema) || schema._zod.def.type !== "object") {
    throw new Error("columnsOfEvent needs a zod object schema of @cg/schema");
  }
  const shape = schema._zod.def.shape as Record<string, unknown>;
  const columns: Column[] = [];
  for (const [key, field] of Object.entries(shape)) {
    if (key === "kind" || !isZod(field)) continue;
    const { base, nullable } = unwrap(field);
    columns.push({
      name: rename[key] ?? key,
      type: sqlTypeOf(base, key),
      nullable,
      source: `wire \`${key}\``,
      key,
    });
  }
  return columns;
}
