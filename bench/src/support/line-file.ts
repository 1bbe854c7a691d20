// Buffered line output for the trace generators: lines are joined and written about 1 MiB at a time.
import { closeSync, openSync, writeSync } from "node:fs";

export interface LineFile {
  emit(line: string): void;
  /** Bytes emitted so far (ASCII lines: one byte per character). */
  readonly length: number;
  /** Writes what is left, closes the file and returns the bytes written. */
  close(): number;
}

export function openLineFile(path: string): LineFile {
  const file = openSync(path, "w");
  let written = 0;
  let lines: string[] = [];
  let pending = 0;
  let emitted = 0;
  const flush = (): void => {
    const text = `${lines.join("\n")}\n`;
    writeSync(file, text);
    written += Buffer.byteLength(text);
    lines = [];
    pending = 0;
  };
  return {
    emit(line) {
      lines.push(line);
      pending += line.length + 1;
      emitted += line.length + 1;
      if (pending > 1 << 20) flush();
    },
    get length() {
      return emitted;
    },
    close() {
      if (lines.length > 0) flush();
      closeSync(file);
      return written;
    },
  };
}
