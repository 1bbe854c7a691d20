// Generated source that builds one event from its validated values `v0..vN` (N: the field index
// in the table) with one object literal per combination of the optional keys present (flags
// `h<i>`): each literal is one fixed hidden class with its fields in the object and its keys in
// table order, as JSON.parse would have created them from a canonical line. Used by the canonical
// byte reader and the text tiers' validators (see generated-function.ts).
import type { EventLayout } from "./event-layouts.js";
import { sourceString } from "./generated-function.js";

/** Above this many optional keys the event is built by stores in table order, not 2^n literals. */
const MAX_LITERAL_OPTIONALS = 4;

function eventLiteral(layout: EventLayout, present: ReadonlySet<number>): string {
  const members = [`kind: ${sourceString(layout.kind)}`];
  layout.fields.forEach((field, index) => {
    if (field.presence !== "optional" || present.has(index))
      members.push(`${sourceString(field.key)}: v${index}`);
  });
  return `{ ${members.join(", ")} }`;
}

function literalReturns(
  layout: EventLayout,
  optionals: readonly number[],
  from: number,
  present: ReadonlySet<number>,
): string {
  if (from === optionals.length) return `return ${eventLiteral(layout, present)};\n`;
  const index = optionals[from] as number;
  const withIt = new Set(present).add(index);
  const rest = literalReturns(layout, optionals, from + 1, present);
  return `if (h${index}) {\n${literalReturns(layout, optionals, from + 1, withIt)}}\n${rest}`;
}

/** Statements that return the event of `layout` from `v<i>` and, for optional keys, `h<i>`. */
export function eventReturnSource(layout: EventLayout): string {
  const optionals = layout.fields.flatMap((field, index) => (field.presence === "optional" ? [index] : []));
  if (optionals.length <= MAX_LITERAL_OPTIONALS) return literalReturns(layout, optionals, 0, new Set());
  let body = `const event = { kind: ${sourceString(layout.kind)} };\n`;
  layout.fields.forEach((field, index) => {
    const store = `event[${sourceString(field.key)}] = v${index};\n`;
    body += field.presence === "optional" ? `if (h${index}) ${store}` : store;
  });
  return `${body}return event;\n`;
}
