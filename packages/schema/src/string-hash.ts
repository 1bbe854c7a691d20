// The one string hash of the hash tables that key on ids (span ids, tensor ids): FNV-1a over the
// string's UTF-16 units. Every table that hashes a string uses this, so one change of the hash
// changes them all.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * FNV-1a over `value`'s UTF-16 units, after `seed` (a small integer that tells apart keys with
 * the same text, e.g. a device code). 30 bits: a small integer, which V8 never boxes (a uint32
 * above 2^30 becomes a heap number per call).
 */
export function hashString(value: string, seed = 0): number {
  let hash = Math.imul(FNV_OFFSET ^ seed, FNV_PRIME);
  for (let index = 0; index < value.length; index++) {
    hash = Math.imul(hash ^ value.charCodeAt(index), FNV_PRIME);
  }
  return hash & 0x3fffffff;
}
