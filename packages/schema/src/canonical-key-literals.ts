// The key literals of canonical lines, derived from the layout table: what the canonical byte
// reader compares a word at a time. A canonical line is `{"kind":"<kind>","<first key>":` followed
// by `,"<key>":` members in the table's order (spec §7.2).
import type { EventLayoutTable } from "./event-layouts.js";

/** `,"<key>":` for every key that can follow another member, keyed by the key. */
export function memberLiterals(layouts: EventLayoutTable): Record<string, string> {
  const members: Record<string, string> = {};
  for (const layout of Object.values(layouts)) {
    for (const field of layout.fields) members[field.key] = `,${JSON.stringify(field.key)}:`;
  }
  return members;
}

/** Per kind, the rest of the line's prefix once `{"kind":"` was matched: `<kind>","<first key>":`. */
export function kindLiterals(layouts: EventLayoutTable): Record<string, string> {
  const kinds: Record<string, string> = {};
  for (const [kind, layout] of Object.entries(layouts)) {
    const first = layout.fields[0];
    if (first !== undefined) kinds[kind] = `${kind}",${JSON.stringify(first.key)}:`;
  }
  return kinds;
}
