// The wire layout of every event kind (spec §2, §7.2), written once. Everything else that knows
// a key, its type, whether it may be absent, its default, what `null` means or where the key goes
// in a canonical line is derived from this table or checked against it by a test: the zod schemas
// and TypeScript types (events.ts), the JSON Schema (scripts/trace-json-schema.ts), the canonical
// encoders, the canonical byte reader's key literals and the known-key sets of the text decoders.
import {
  EXECUTION_PHASES,
  EXECUTION_STEPS,
  GRADIENT_STATES,
  MEMORY_ACTIONS,
  MEMORY_CATEGORIES,
  SPAN_KINDS,
  TIMING_MODES,
} from "./wire-enums.js";

/**
 * How a value is written on the wire:
 * - `string`: a JSON string;
 * - `u64`: an unsigned 64-bit integer written as digits only (spec §5), a `U64` in JavaScript;
 * - `boolean`: `true` / `false`;
 * - `f64`: any finite JSON number, read as a float (spec §6), written in canonical float form;
 * - `enum`: a JSON string, one of `variants` exactly;
 * - `strings`: an array of JSON strings;
 * - `shape`: an array of usize (digits only, like u64);
 * - `string_map`: an object whose values are all strings, keys written in byte order (spec §7.3).
 */
export type WireType = "string" | "u64" | "boolean" | "f64" | "enum" | "strings" | "shape" | "string_map";

/**
 * - `required`: a reader rejects the line without it ("missing field"); always written.
 * - `defaulted`: a reader applies `default` when absent; writers always write it.
 * - `optional`: absent stays absent (no default); written only when present.
 */
export type Presence = "required" | "defaulted" | "optional";

/** One key of an event kind. */
export interface FieldLayout {
  readonly key: string;
  readonly type: WireType;
  /** The accepted spellings, in the spec's order; only for `type: "enum"`. */
  readonly variants?: readonly string[];
  readonly presence: Presence;
  /** The value a reader applies when a `defaulted` key is absent. */
  readonly default?: boolean | number | string | readonly never[];
  /**
   * What an explicit JSON `null` means: `"absent"` for optional keys without a default (spec
   * §2.1), `"rejected"` for every other key.
   */
  readonly null: "absent" | "rejected";
}

/** One event kind: `kind` is at canonical position 0, `fields[i]` at position i + 1. */
export interface EventLayout {
  readonly kind: string;
  /** Every key except `kind`, in canonical (writing) order. */
  readonly fields: readonly FieldLayout[];
}

// Small constructors keep each row one line and make the null rule follow from the presence.
function required<const K extends string, const T extends WireType>(key: K, type: T) {
  return { key, type, presence: "required", null: "rejected" } as const;
}
function defaulted<const K extends string, const T extends WireType, const D>(key: K, type: T, value: D) {
  return { key, type, presence: "defaulted", default: value, null: "rejected" } as const;
}
function optional<const K extends string, const T extends WireType>(key: K, type: T) {
  return { key, type, presence: "optional", null: "absent" } as const;
}
function requiredEnum<const K extends string, const V extends readonly string[]>(key: K, variants: V) {
  return { key, type: "enum", variants, presence: "required", null: "rejected" } as const;
}
function defaultedEnum<const K extends string, const V extends readonly string[], const D extends V[number]>(
  key: K,
  variants: V,
  value: D,
) {
  return { key, type: "enum", variants, presence: "defaulted", default: value, null: "rejected" } as const;
}
function optionalEnum<const K extends string, const V extends readonly string[]>(key: K, variants: V) {
  return { key, type: "enum", variants, presence: "optional", null: "absent" } as const;
}

/**
 * The wire layout of each event kind (spec §2.2–§2.10), keys in canonical order (spec §7.2).
 * Edit a row here, regenerate the JSON Schema (`pnpm --filter @cg/schema generate:json-schema`) and run the fixtures: that is
 * how a wire field is added, removed or moved.
 */
export const EVENT_LAYOUTS = {
  meta: {
    kind: "meta",
    fields: [
      required("schema", "string"),
      required("run_id", "string"),
      required("correlation_id", "string"),
      required("entrypoint", "string"),
      requiredEnum("phase", EXECUTION_PHASES),
      required("timestamp", "string"),
      required("capture_step", "u64"),
      required("warmup_steps", "u64"),
      required("device", "string"),
      defaulted("measured_region_device_synchronized", "boolean", false),
      requiredEnum("timing_mode", TIMING_MODES),
      required("tags", "string_map"),
      optional("candle_version", "string"),
    ],
  },
  span_start: {
    kind: "span_start",
    fields: [
      required("id", "string"),
      optional("parent_id", "string"),
      required("name", "string"),
      required("start_ns", "u64"),
      requiredEnum("span_kind", SPAN_KINDS),
      defaulted("measured", "boolean", false),
      optionalEnum("step", EXECUTION_STEPS),
    ],
  },
  span_end: {
    kind: "span_end",
    fields: [required("id", "string"), defaulted("duration_ns", "u64", 0)],
  },
  op: {
    kind: "op",
    fields: [
      required("span_id", "string"),
      required("op_name", "string"),
      defaulted("inputs", "strings", []),
      optional("output", "string"),
      defaulted("shape", "shape", []),
      required("dtype", "string"),
      required("device", "string"),
      required("duration_ns", "u64"),
      defaulted("timestamp_ns", "u64", 0),
      optional("storage_bytes", "u64"),
      defaulted("input_storage_bytes", "u64", 0),
    ],
  },
  tensor: {
    kind: "tensor",
    fields: [
      required("span_id", "string"),
      required("tensor_id", "string"),
      defaulted("shape", "shape", []),
      required("dtype", "string"),
      required("device", "string"),
      defaulted("requires_grad", "boolean", false),
      optional("storage_bytes", "u64"),
      defaultedEnum("category", MEMORY_CATEGORIES, "other"),
    ],
  },
  memory: {
    kind: "memory",
    fields: [
      required("timestamp_ns", "u64"),
      required("tensor_id", "string"),
      required("span_id", "string"),
      optional("op_name", "string"),
      required("device", "string"),
      required("bytes", "u64"),
      requiredEnum("action", MEMORY_ACTIONS),
      defaulted("shape", "shape", []),
      required("dtype", "string"),
      defaultedEnum("category", MEMORY_CATEGORIES, "other"),
    ],
  },
  device_memory: {
    kind: "device_memory",
    fields: [
      required("timestamp_ns", "u64"),
      required("device", "string"),
      required("used_bytes", "u64"),
      required("free_bytes", "u64"),
      optional("reserved_bytes", "u64"),
    ],
  },
  gradient: {
    kind: "gradient",
    fields: [
      required("event_id", "string"),
      required("root", "string"),
      required("key", "string"),
      requiredEnum("state", GRADIENT_STATES),
      optional("norm", "f64"),
    ],
  },
  edge: {
    kind: "edge",
    fields: [required("from_span", "string"), required("to_span", "string"), required("duration_ns", "u64")],
  },
} as const satisfies EventLayoutTable;

export type EventLayouts = typeof EVENT_LAYOUTS;

/** Any table of the same shape, e.g. a modified copy in a test or a neighbouring schema revision. */
export type EventLayoutTable = { readonly [kind: string]: EventLayout };

/** The known keys of each kind, `kind` included: a repeated one is a "duplicate field" (spec §2.1). */
export function knownKeySets(layouts: EventLayoutTable): ReadonlyMap<string, ReadonlySet<string>> {
  const sets = new Map<string, ReadonlySet<string>>();
  for (const [kind, layout] of Object.entries(layouts)) {
    sets.set(kind, new Set(["kind", ...layout.fields.map((field) => field.key)]));
  }
  return sets;
}

/** The keys of each kind whose value is a `string_map` (every value must be a string, spec §2.2). */
export function mapKeySets(layouts: EventLayoutTable): ReadonlyMap<string, ReadonlySet<string>> {
  const sets = new Map<string, ReadonlySet<string>>();
  for (const [kind, layout] of Object.entries(layouts)) {
    const keys = layout.fields.filter((field) => field.type === "string_map").map((field) => field.key);
    if (keys.length > 0) sets.set(kind, new Set(keys));
  }
  return sets;
}
