import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { compareCodePoints, type MemoryCategory } from "@cg/trace";
import { writeAll } from "../atomic-write.js";
import { cleanupOnInterrupt } from "../interrupt-cleanup.js";

/** The fields of a `memory` event the counters need. */
export interface MemoryRecord {
  timestamp: bigint;
  /** 0 for alloc, 1 for free: allocs sort first at equal timestamps (spec §11). */
  action: 0 | 1;
  tensorId: string;
  device: string;
  bytes: bigint;
  category: MemoryCategory;
  /** File order, the final tie-breaker. */
  sequence: number;
}

export function compareMemoryRecords(left: MemoryRecord, right: MemoryRecord): number {
  if (left.timestamp !== right.timestamp) return left.timestamp < right.timestamp ? -1 : 1;
  if (left.action !== right.action) return left.action - right.action;
  return compareCodePoints(left.tensorId, right.tensorId) || left.sequence - right.sequence;
}

type SpilledRecord = [string, 0 | 1, string, string, string, MemoryCategory, number];

function toLine(record: MemoryRecord): string {
  const row: SpilledRecord = [
    record.timestamp.toString(),
    record.action,
    record.tensorId,
    record.device,
    record.bytes.toString(),
    record.category,
    record.sequence,
  ];
  return `${JSON.stringify(row)}\n`;
}

function fromLine(line: string): MemoryRecord {
  const [timestamp, action, tensorId, device, bytes, category, sequence] = JSON.parse(line) as SpilledRecord;
  return { timestamp: BigInt(timestamp), action, tensorId, device, bytes: BigInt(bytes), category, sequence };
}

/** Reads a spilled run back one record at a time with a fixed-size buffer. */
class RunReader {
  readonly #descriptor: number;
  readonly #buffer = Buffer.alloc(1 << 16);
  // Keeps a multi-byte character that straddles two reads intact.
  readonly #decoder = new StringDecoder("utf8");
  #carry = "";
  #lines: string[] = [];
  #exhausted = false;

  constructor(path: string) {
    this.#descriptor = openSync(path, "r");
  }

  next(): MemoryRecord | undefined {
    while (this.#lines.length === 0 && !this.#exhausted) {
      const count = readSync(this.#descriptor, this.#buffer, 0, this.#buffer.length, null);
      if (count === 0) {
        this.close();
        const rest = this.#carry + this.#decoder.end();
        if (rest !== "") this.#lines.push(rest);
        break;
      }
      const parts = (this.#carry + this.#decoder.write(this.#buffer.subarray(0, count))).split("\n");
      this.#carry = parts.pop() ?? "";
      this.#lines = parts.filter((part) => part !== "");
    }
    const line = this.#lines.shift();
    return line === undefined ? undefined : fromLine(line);
  }

  close(): void {
    if (this.#exhausted) return;
    this.#exhausted = true;
    closeSync(this.#descriptor);
  }
}

/**
 * Sorts memory events in the order of the memory analysis (spec §11) with bounded memory: up to
 * `chunkSize` records are held; beyond that, sorted runs are spilled to a temporary directory and
 * merged.
 */
export class MemoryEventSorter {
  readonly #chunkSize: number;
  #chunk: MemoryRecord[] = [];
  #directory: string | undefined;
  #releaseCleanup: (() => void) | undefined;
  readonly #runs: string[] = [];
  #readers: RunReader[] = [];

  // 50,000 records (a few MB live): with 200,000 the V8 heap grew with each spilled chunk and a
  // 1 GiB conversion peaked at 359 MB RSS; with 50,000 it stays near 210 MB (bench: cli-convert).
  constructor(chunkSize = 50_000) {
    this.#chunkSize = chunkSize;
  }

  /** Number of runs written to disk so far (0 when everything fitted in memory). */
  get spilledRuns(): number {
    return this.#runs.length;
  }

  add(record: MemoryRecord): void {
    this.#chunk.push(record);
    if (this.#chunk.length >= this.#chunkSize) this.#spill();
  }

  #spill(): void {
    this.#chunk.sort(compareMemoryRecords);
    if (this.#directory === undefined) {
      const directory = mkdtempSync(join(tmpdir(), "cg-trace-sort-"));
      this.#directory = directory;
      this.#releaseCleanup = cleanupOnInterrupt(() => rmSync(directory, { recursive: true, force: true }));
    }
    const path = join(this.#directory, `run-${this.#runs.length}.jsonl`);
    const descriptor = openSync(path, "w");
    try {
      let text = "";
      for (const record of this.#chunk) {
        text += toLine(record);
        if (text.length >= 1 << 16) {
          writeAll(descriptor, Buffer.from(text, "utf8"));
          text = "";
        }
      }
      if (text !== "") writeAll(descriptor, Buffer.from(text, "utf8"));
    } finally {
      closeSync(descriptor);
    }
    this.#runs.push(path);
    this.#chunk = [];
  }

  /** Yields all records in sorted order, then removes any temporary files. */
  *sorted(): Generator<MemoryRecord> {
    try {
      if (this.#runs.length === 0) {
        this.#chunk.sort(compareMemoryRecords);
        yield* this.#chunk;
        return;
      }
      if (this.#chunk.length > 0) this.#spill();
      const readers = this.#runs.map((path) => new RunReader(path));
      this.#readers = readers;
      const heads = readers.map((reader) => reader.next());
      for (;;) {
        let best = -1;
        for (let index = 0; index < heads.length; index += 1) {
          const head = heads[index];
          if (head === undefined) continue;
          const current = best < 0 ? undefined : heads[best];
          if (current === undefined || compareMemoryRecords(head, current) < 0) best = index;
        }
        if (best < 0) return;
        yield heads[best]!;
        heads[best] = readers[best]!.next();
      }
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    this.#chunk = [];
    for (const reader of this.#readers) reader.close();
    this.#readers = [];
    if (this.#directory !== undefined) rmSync(this.#directory, { recursive: true, force: true });
    this.#directory = undefined;
    this.#releaseCleanup?.();
    this.#releaseCleanup = undefined;
  }
}
