/**
 * Keeps at most `limit` items of a series, in order: the first, the last and, per equal-width
 * bucket of indexes, the item with the largest `weight`, so peaks survive the reduction.
 */
export function downsampleByMaximum<Item>(
  items: readonly Item[],
  limit: number,
  weight: (item: Item) => number,
): Item[] {
  if (items.length <= limit) return items.slice();
  const buckets = Math.max(1, limit - 2);
  const kept: Item[] = [items[0] as Item];
  const inner = items.length - 2;
  for (let bucket = 0; bucket < buckets; bucket++) {
    const from = 1 + Math.floor((bucket * inner) / buckets);
    const to = 1 + Math.floor(((bucket + 1) * inner) / buckets);
    let best = -1;
    for (let index = from; index < to; index++) {
      if (best < 0 || weight(items[index] as Item) > weight(items[best] as Item)) best = index;
    }
    if (best >= 0) kept.push(items[best] as Item);
  }
  kept.push(items[items.length - 1] as Item);
  return kept;
}
