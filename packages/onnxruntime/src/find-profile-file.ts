import { readdir, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { OrtProfileError } from "./ort-profile-error.js";

/**
 * The profile ONNX Runtime wrote for `profileFilePrefix` (it appends `_<date>_<time>.json`), written
 * no earlier than `notBeforeMs`; the newest one when several match.
 */
export async function findProfileFile(profileFilePrefix: string, notBeforeMs: number): Promise<string> {
  const directory = dirname(profileFilePrefix);
  const stem = `${basename(profileFilePrefix)}_`;
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    names = [];
  }
  let newest: { path: string; mtimeMs: number } | undefined;
  for (const name of names) {
    if (!name.startsWith(stem) || !name.endsWith(".json")) continue;
    const path = join(directory, name);
    const { mtimeMs } = await stat(path);
    if (mtimeMs + 1000 < notBeforeMs) continue; // file times can be coarser than the clock
    if (newest === undefined || mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  }
  if (newest === undefined) {
    throw new OrtProfileError({
      code: "profile_missing",
      message: `ONNX Runtime wrote no profile ${profileFilePrefix}_*.json: create the session with { enableProfiling: true, profileFilePrefix } (see profilingSessionOptions()) and do not call endProfiling() before the capture`,
    });
  }
  return newest.path;
}
