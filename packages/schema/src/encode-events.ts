import { compareCodePoints } from "./code-point-order.js";
import { formatCanonicalFloat } from "./encode-float.js";
import { encodeJsonString as str } from "./encode-string.js";
import { EVENT_LAYOUTS, type EventLayout, type FieldLayout } from "./event-layouts.js";
import type { EventOfKind, TraceEvent } from "./events.js";
import { isU64, type U64 } from "./u64.js";

// Canonical encoders (spec §7), derived from the layout table: keys in the table's order, optional
// keys only when present, defaulted keys always (their default when the value is absent). Each
// returns one line without its terminating LF. They throw a TypeError for values the wire cannot
// carry, so no encoder ever emits a line that `decodeTraceLine` would reject.

function u64(value: U64, field: string): string {
  if (typeof value === "number") {
    if (value >= 0 && Number.isSafeInteger(value) && !Object.is(value, -0)) return String(value);
  } else if (isU64(value)) {
    return value.toString();
  }
  throw new TypeError(`${field} must be an integer in 0..18446744073709551615, got ${String(value)}`);
}

function shapeList(shape: readonly U64[], field: string): string {
  let text = "[";
  for (let index = 0; index < shape.length; index++) {
    if (index > 0) text += ",";
    text += u64(shape[index] as U64, `${field}[${index}]`);
  }
  return `${text}]`;
}

function stringList(values: readonly string[]): string {
  let text = "[";
  for (let index = 0; index < values.length; index++) {
    if (index > 0) text += ",";
    text += str(values[index] as string);
  }
  return `${text}]`;
}

/** `tags` with keys in code-point (UTF-8 byte) order, not object enumeration order (spec §7.3). */
export function encodeTags(tags: Readonly<Record<string, string>>): string {
  const keys = Object.keys(tags).sort(compareCodePoints);
  let text = "{";
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (index > 0) text += ",";
    text += `${str(key)}:${str(tags[key] as string)}`;
  }
  return `${text}}`;
}

/** One value in its wire form; `field` (e.g. `op.shape`) names it in errors. */
function encodeValue(field: FieldLayout, value: unknown, name: string): string {
  switch (field.type) {
    case "string":
    case "enum":
      return str(value as string);
    case "u64":
      return u64(value as U64, name);
    case "boolean":
      return value ? "true" : "false";
    case "f64":
      // A non-finite norm is written as `null`, exactly as the reference does (spec §6.2).
      return formatCanonicalFloat(value as number);
    case "strings":
      return stringList(value as readonly string[]);
    case "shape":
      return shapeList(value as readonly U64[], name);
    case "string_map":
      return encodeTags(value as Readonly<Record<string, string>>);
  }
}

/** A layout row prepared once: the `,"key":` text and error name of each field. */
interface PreparedLayout {
  readonly opening: string;
  readonly fields: readonly { field: FieldLayout; member: string; name: string }[];
}

const prepared = new WeakMap<EventLayout, PreparedLayout>();

function prepare(layout: EventLayout): PreparedLayout {
  let entry = prepared.get(layout);
  if (entry === undefined) {
    entry = {
      opening: `{"kind":${str(layout.kind)}`,
      fields: layout.fields.map((field) => ({
        field,
        member: `,${str(field.key)}:`,
        name: `${layout.kind}.${field.key}`,
      })),
    };
    prepared.set(layout, entry);
  }
  return entry;
}

/**
 * The canonical line of `event` laid out by `layout` (any table row, e.g. one of a modified table
 * in a test): `kind` first, then every field in the row's order.
 */
export function encodeWithLayout(layout: EventLayout, event: Readonly<Record<string, unknown>>): string {
  const { opening, fields } = prepare(layout);
  let text = opening;
  for (const { field, member, name } of fields) {
    let value = event[field.key];
    if (value === undefined) {
      if (field.presence === "optional") continue;
      if (field.presence === "required") throw new TypeError(`${name} is required`);
      value = field.default;
    }
    text += member + encodeValue(field, value, name);
  }
  return `${text}}`;
}

export function encodeMetaEvent(event: EventOfKind<"meta">): string {
  return encodeWithLayout(EVENT_LAYOUTS.meta, event);
}

export function encodeSpanStartEvent(event: EventOfKind<"span_start">): string {
  return encodeWithLayout(EVENT_LAYOUTS.span_start, event);
}

export function encodeSpanEndEvent(event: EventOfKind<"span_end">): string {
  return encodeWithLayout(EVENT_LAYOUTS.span_end, event);
}

export function encodeOpEvent(event: EventOfKind<"op">): string {
  return encodeWithLayout(EVENT_LAYOUTS.op, event);
}

export function encodeTensorEvent(event: EventOfKind<"tensor">): string {
  return encodeWithLayout(EVENT_LAYOUTS.tensor, event);
}

export function encodeMemoryEvent(event: EventOfKind<"memory">): string {
  return encodeWithLayout(EVENT_LAYOUTS.memory, event);
}

export function encodeDeviceMemoryEvent(event: EventOfKind<"device_memory">): string {
  return encodeWithLayout(EVENT_LAYOUTS.device_memory, event);
}

/** A non-finite norm is written as `"norm":null`, exactly as the reference does (spec §6.2). */
export function encodeGradientEvent(event: EventOfKind<"gradient">): string {
  return encodeWithLayout(EVENT_LAYOUTS.gradient, event);
}

export function encodeEdgeEvent(event: EventOfKind<"edge">): string {
  return encodeWithLayout(EVENT_LAYOUTS.edge, event);
}

/** The canonical line of any event (no trailing LF). */
export function encodeTraceEvent(event: TraceEvent): string {
  const layout: EventLayout | undefined = EVENT_LAYOUTS[event.kind];
  if (layout === undefined) throw new TypeError(`unknown event kind ${String(event.kind)}`);
  return encodeWithLayout(layout, event);
}
