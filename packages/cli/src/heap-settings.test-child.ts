// Run by heap-settings.test.ts in a fresh node (tsx as its loader, V8's young generation limit raised
// so that only the settings stop its growth): applies the heap settings for the command given, as if
// node had no options, then allocates 200 MB in objects that each live a while and awaits now and
// then, as a streamed read does between chunks; prints the young generation's size before and after.
import { getHeapSpaceStatistics } from "node:v8";
import { applyHeapSettings } from "./heap-settings.js";

applyHeapSettings(process.argv.slice(2), [], undefined);
const young = () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size;
const first = young();
let kept: number[][] = [];
for (let round = 0; round < 12_800; round++) {
  kept.push(new Array<number>(2048).fill(round));
  if (kept.length > 128) kept = kept.slice(64);
  if (round % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
}
console.log(JSON.stringify({ first, last: young() }));
