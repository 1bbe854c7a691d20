import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { createInterface } from "node:readline";
import { OrtProfileError } from "./ort-profile-error.js";
import type { OrtProfileRun } from "./ort-profile-run.js";
import { OrtProfileScanner, type ScanOptions } from "./ort-profile-scanner.js";

export type ReadOrtProfileOptions = Omit<ScanOptions, "file">;

/**
 * Streams an ONNX Runtime profile file and returns one run (default: the last). Errors name the
 * file, the line and the field; a file that is not an ONNX Runtime profile (a Chrome/Perfetto JSON
 * object, a Kineto trace, a binary Perfetto trace) is refused before it is read further.
 */
export async function readOrtProfile(
  path: string,
  options: ReadOrtProfileOptions = {},
): Promise<OrtProfileRun> {
  await refuseBinary(path);
  const scanner = new OrtProfileScanner({ ...options, file: path });
  const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
  try {
    for await (const line of lines) scanner.push(line);
  } finally {
    lines.close();
  }
  return scanner.finish();
}

/** Scans profile text already in memory (tests, browsers). */
export function scanOrtProfileText(text: string, options: ScanOptions = {}): OrtProfileRun {
  const scanner = new OrtProfileScanner(options);
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf("\n", start);
    const stop = end === -1 ? text.length : end;
    scanner.push(text.slice(start, stop));
    if (end === -1) break;
    start = end + 1;
  }
  return scanner.finish();
}

async function refuseBinary(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const bytes = head.subarray(0, bytesRead);
    if (!isText(bytes)) {
      throw new OrtProfileError({
        code: "not_ort_profile",
        file: path,
        message: `${path}: not an ONNX Runtime profile: binary content (a Perfetto protobuf trace?); ONNX Runtime writes a JSON array of events`,
      });
    }
  } finally {
    await handle.close();
  }
}

// UTF-8 without control characters other than tab and line ends (a sequence cut at the end is fine).
function isText(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  }
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}
