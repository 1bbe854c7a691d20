// Run by v8-settings.test.ts in a fresh node (tsx as its loader, V8's young generation limit raised
// so that only the settings stop its growth). Either applies the V8 settings for the command given,
// as if node had no options, or (`--flags <JSON list>`) sets those flags as they are; then allocates
// 200 MB in objects that each live a while and awaits now and then, as a streamed read does between
// chunks, and prints the young generation's size before and after.
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { applyV8Settings } from "./v8-settings.js";

const [command = "", flags = "[]"] = process.argv.slice(2);
if (command === "--flags") for (const flag of JSON.parse(flags) as string[]) setFlagsFromString(flag);
else applyV8Settings([command], [], undefined);
const young = () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size;
const first = young();
let kept: number[][] = [];
for (let round = 0; round < 12_800; round++) {
  kept.push(new Array<number>(2048).fill(round));
  if (kept.length > 128) kept = kept.slice(64);
  if (round % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
}
console.log(JSON.stringify({ first, last: young() }));
