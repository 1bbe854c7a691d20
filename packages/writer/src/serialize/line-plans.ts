// Where the writer takes each key of a record line from. The keys, their order, wire types,
// presence and defaults come from @cg/schema's EVENT_LAYOUTS; this says only what the table cannot:
// which keys the session supplies (the span id, the memory action), which take the clock's time
// when absent, and which are derived (spec §15.4). Every other key is the record's property of the
// same name in camelCase (`op_name` → `opName`), which is also the field an input error names.
import { EVENT_LAYOUTS, type EventLayout } from "@cg/schema/core";

export type ValueSource =
  /** `record[property]`. */
  | { readonly from: "record"; readonly property: string }
  /** The span's id (the string path gets it as JSON text already). */
  | { readonly from: "span" }
  /** The `action` argument of the memory record methods. */
  | { readonly from: "action" }
  /** `record[property]`, or when absent one clock reading, taken after every other key was checked. */
  | { readonly from: "clock"; readonly property: string }
  /** `record.storageBytes`, or when absent derived from the line's shape and dtype (spec §15.4). */
  | { readonly from: "storage" };

export interface LinePlan {
  readonly layout: EventLayout;
  /** The source of each key, in the table's order. */
  readonly sources: readonly ValueSource[];
}

function camelCase(key: string): string {
  return key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

function plan(layout: EventLayout, special: Readonly<Record<string, ValueSource>>): LinePlan {
  const sources = layout.fields.map(
    (field): ValueSource => special[field.key] ?? { from: "record", property: camelCase(field.key) },
  );
  return { layout, sources };
}

const TIMESTAMP: ValueSource = { from: "clock", property: "timestampNs" };
const SPAN: ValueSource = { from: "span" };
const STORAGE: ValueSource = { from: "storage" };

/** The record lines the session writes (span lines have their own plan: span-line-plan.ts). */
export const LINE_PLANS = {
  op: plan(EVENT_LAYOUTS.op, { span_id: SPAN, timestamp_ns: TIMESTAMP, storage_bytes: STORAGE }),
  tensor: plan(EVENT_LAYOUTS.tensor, { span_id: SPAN, storage_bytes: STORAGE }),
  memory: plan(EVENT_LAYOUTS.memory, { span_id: SPAN, action: { from: "action" }, timestamp_ns: TIMESTAMP }),
  device_memory: plan(EVENT_LAYOUTS.device_memory, { timestamp_ns: TIMESTAMP }),
} as const;

/** `base`'s plan for another layout of its kind (a test's modified table): same sources by key. */
export function planWithLayout(base: LinePlan, layout: EventLayout): LinePlan {
  const special: Record<string, ValueSource> = {};
  base.layout.fields.forEach((field, index) => {
    special[field.key] = base.sources[index] as ValueSource;
  });
  return plan(layout, special);
}
