import { MEMORY_CATEGORIES } from "@cg/schema";
import { putAscii } from "./byte-values.js";
import { Fragment, type LineTarget, putFragment } from "./line-target.js";

const CATEGORY = new Fragment(',"category":');
/** `"category"` for each memory category, and `"other"` for an absent one. */
const CATEGORY_JSON = new Map<unknown, string>([
  [undefined, '"other"'],
  ...MEMORY_CATEGORIES.map((category): [string, string] => [category, `"${category}"`]),
]);

/**
 * `,"category":"…"}\n` for a valid or absent category; -1 for anything else. The caller has left
 * FIXED_RESERVE free, which the longest category fits.
 */
export function putCategoryEnd(target: LineTarget, pos: number, category: unknown): number {
  const json = CATEGORY_JSON.get(category);
  if (json === undefined) return -1;
  const bytes = target.bytes;
  let at = putFragment(target, pos, CATEGORY);
  at = putAscii(bytes, at, json);
  bytes[at] = 0x7d;
  bytes[at + 1] = 0x0a;
  return at + 2;
}
