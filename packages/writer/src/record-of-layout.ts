// The input of a record method, derived by type from the kind's row of the wire layout table
// (`EVENT_LAYOUTS` in @cg/schema): every wire key under its camelCase name, so a key added to the
// table is a key of the record without an edit here. Only what the writer supplies itself is
// named: keys it always writes (the span id, the memory action) and keys it fills in when absent
// (a clock reading).
import type { EventLayout, U64 } from "@cg/schema/core";

/** `input_storage_bytes` → `inputStorageBytes`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** The value a record holds for a field of this wire type (arrays may be read-only). */
export type RecordValueOf<F> = F extends { readonly type: "string" }
  ? string
  : F extends { readonly type: "u64" }
    ? U64
    : F extends { readonly type: "boolean" }
      ? boolean
      : F extends { readonly type: "f64" }
        ? number
        : F extends { readonly type: "enum"; readonly variants: infer V extends readonly string[] }
          ? V[number]
          : F extends { readonly type: "strings" }
            ? readonly string[]
            : F extends { readonly type: "shape" }
              ? readonly U64[]
              : F extends { readonly type: "string_map" }
                ? Readonly<Record<string, string>>
                : never;

type FieldOf<L extends EventLayout> = L["fields"][number];

/** One object type instead of an intersection, so editors show the record's keys together. */
type Flatten<T> = { [K in keyof T]: T[K] };

/**
 * The record of a layout row. `Supplied`: wire keys the writer always writes itself (not in the
 * record). `FilledWhenAbsent`: required wire keys the record may leave out (the writer reads its
 * clock). Every other required key is required; defaulted and optional keys are optional and also
 * accept an explicit `undefined`.
 */
export type RecordOfLayout<
  L extends EventLayout,
  Supplied extends string = never,
  FilledWhenAbsent extends string = never,
> = Flatten<
  {
    [F in FieldOf<L> as F["key"] extends Supplied | FilledWhenAbsent
      ? never
      : F["presence"] extends "required"
        ? CamelCase<F["key"]>
        : never]: RecordValueOf<F>;
  } & {
    [F in FieldOf<L> as F["key"] extends Supplied
      ? never
      : F["presence"] extends "required"
        ? F["key"] extends FilledWhenAbsent
          ? CamelCase<F["key"]>
          : never
        : CamelCase<F["key"]>]?: RecordValueOf<F> | undefined;
  }
>;
