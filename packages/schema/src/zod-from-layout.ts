// The zod schema and the TypeScript types of an event kind, derived from its row of the layout
// table (event-layouts.ts) at module load. zod stays off the decoders' hot paths, so building the
// schemas from the table costs nothing per line.
import { z } from "zod";
import type { EventLayout, FieldLayout } from "./event-layouts.js";
import { U64 } from "./u64-schema.js";

/** Optional key with no default: JSON `null` reads as absent (spec §2.1). */
function absentWhenNull<T extends z.ZodType>(schema: T) {
  return schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();
}

type EnumSchema<V extends readonly string[]> = z.ZodEnum<{ [K in V[number]]: K }>;

/** The zod schema of a field's wire type, before its presence rule. */
type ValueSchema<F> = F extends { readonly type: "string" }
  ? z.ZodString
  : F extends { readonly type: "u64" }
    ? typeof U64
    : F extends { readonly type: "boolean" }
      ? z.ZodBoolean
      : F extends { readonly type: "f64" }
        ? z.ZodNumber
        : F extends { readonly type: "enum"; readonly variants: infer V extends readonly string[] }
          ? EnumSchema<V>
          : F extends { readonly type: "strings" }
            ? z.ZodArray<z.ZodString>
            : F extends { readonly type: "shape" }
              ? z.ZodArray<typeof U64>
              : F extends { readonly type: "string_map" }
                ? z.ZodRecord<z.ZodString, z.ZodString>
                : never;

type FieldSchema<F> = F extends { readonly presence: "required" }
  ? ValueSchema<F>
  : F extends { readonly presence: "defaulted" }
    ? z.ZodDefault<ValueSchema<F>>
    : ReturnType<typeof absentWhenNull<ValueSchema<F> & z.ZodType>>;

/** The zod object shape of a layout row: `kind` as a literal, then every field. */
export type ZodShapeOf<L extends EventLayout> = {
  [K in "kind" | L["fields"][number]["key"]]: K extends "kind"
    ? z.ZodLiteral<L["kind"]>
    : FieldSchema<Extract<L["fields"][number], { readonly key: K }>>;
};

/** The zod schema of a layout row. */
export type EventSchemaOf<L extends EventLayout> = z.ZodObject<ZodShapeOf<L>, z.core.$strip>;

/** The decoded event of a layout row (the zod output: defaults applied, optional keys optional). */
export type EventOfLayout<L extends EventLayout> = z.output<EventSchemaOf<L>>;

function valueSchema(field: FieldLayout): z.ZodType {
  switch (field.type) {
    case "string":
      return z.string();
    case "u64":
      return U64;
    case "boolean":
      return z.boolean();
    case "f64":
      return z.number();
    case "enum":
      return z.enum(field.variants as readonly [string, ...string[]]);
    case "strings":
      return z.array(z.string());
    case "shape":
      return z.array(U64);
    case "string_map":
      return z.record(z.string(), z.string());
  }
}

function fieldSchema(field: FieldLayout): z.ZodType {
  const schema = valueSchema(field);
  switch (field.presence) {
    case "required":
      return schema;
    case "defaulted": {
      const value = field.default;
      // A fresh array per default, so no decoded event shares one with another.
      return Array.isArray(value) ? schema.default(() => []) : schema.default(value);
    }
    case "optional":
      return absentWhenNull(schema);
  }
}

/** Builds the zod schema of one layout row; keys in canonical order. */
export function zodSchemaOf<const L extends EventLayout>(layout: L): EventSchemaOf<L> {
  const shape: Record<string, z.ZodType> = { kind: z.literal(layout.kind) };
  for (const field of layout.fields) shape[field.key] = fieldSchema(field);
  return z.object(shape) as unknown as EventSchemaOf<L>;
}
