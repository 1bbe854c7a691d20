import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { compareMemoryOrder } from "@cg/memory";
import { type MemoryCategory, normalizeU64 } from "@cg/schema/core";
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

/** Spec §11 analysis order (`compareMemoryOrder`), then file order. */
export function compareMemoryRecords(left: MemoryRecord, right: MemoryRecord): number {
  return (
    compareMemoryOrder(
      left.timestamp,
      left.action === 0,
      left.tensorId,
      right.timestamp,
      right.action === 0,
      right.tensorId,
    ) || left.sequence - right.sequence
  );
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

const CATEGORY_CODES: readonly MemoryCategory[] = [
  "activation",
  "gradient",
  "optimizer",
  "other",
  "parameter",
];

/** UTF-16 unit as a key whose order is code-point order (surrogates sort after U+E000–U+FFFF). */
function unitKey(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}

/**
 * One sort chunk as columns: numbers in typed arrays, tensor ids copied into one UTF-16 arena,
 * devices interned. A chunk lives until it is spilled, long enough for V8 to promote whatever it
 * holds; as objects (two bigints and a string per record) each chunk became old-generation
 * garbage and the heap grew by tens of MB over a 1 GiB conversion.
 */
class RecordColumns {
  size = 0;
  #timestamp: Float64Array;
  #bytes: Float64Array;
  #sequence: Float64Array;
  #flags: Uint8Array;
  #device: Uint32Array;
  #idStart: Uint32Array;
  #idUnits = new Uint16Array(1 << 16);
  #idLength = 0;
  /** Values above 2^53 − 1, by row (the Float64 columns hold NaN there). */
  readonly #bigTimestamp = new Map<number, bigint>();
  readonly #bigBytes = new Map<number, bigint>();
  readonly #devices: string[] = [];
  readonly #deviceIndex = new Map<string, number>();

  constructor(capacity: number) {
    this.#timestamp = new Float64Array(capacity);
    this.#bytes = new Float64Array(capacity);
    this.#sequence = new Float64Array(capacity);
    this.#flags = new Uint8Array(capacity);
    this.#device = new Uint32Array(capacity);
    this.#idStart = new Uint32Array(capacity + 1);
  }

  get capacity(): number {
    return this.#flags.length;
  }

  /** Empties the chunk, keeping its storage for the next run. */
  clear(): void {
    this.size = 0;
    this.#idLength = 0;
    this.#bigTimestamp.clear();
    this.#bigBytes.clear();
  }

  add(record: MemoryRecord): void {
    const row = this.size++;
    setExact(this.#timestamp, this.#bigTimestamp, row, record.timestamp);
    setExact(this.#bytes, this.#bigBytes, row, record.bytes);
    this.#sequence[row] = record.sequence;
    this.#flags[row] = record.action | (CATEGORY_CODES.indexOf(record.category) << 1);
    let device = this.#deviceIndex.get(record.device);
    if (device === undefined) {
      device = this.#devices.length;
      this.#devices.push(record.device);
      this.#deviceIndex.set(record.device, device);
    }
    this.#device[row] = device;
    const id = record.tensorId;
    if (this.#idLength + id.length > this.#idUnits.length) {
      let length = this.#idUnits.length * 2;
      while (length < this.#idLength + id.length) length *= 2;
      const units = new Uint16Array(length);
      units.set(this.#idUnits.subarray(0, this.#idLength));
      this.#idUnits = units;
    }
    this.#idStart[row] = this.#idLength;
    for (let unit = 0; unit < id.length; unit++) this.#idUnits[this.#idLength++] = id.charCodeAt(unit);
    this.#idStart[row + 1] = this.#idLength;
  }

  /** Rows in analysis order (see `compareMemoryRecords`). */
  sortedRows(): Uint32Array {
    const rows = new Uint32Array(this.size);
    for (let row = 0; row < rows.length; row++) rows[row] = row;
    return rows.sort((left, right) => this.#compare(left, right));
  }

  record(row: number): MemoryRecord {
    const flags = this.#flags[row] as number;
    return {
      timestamp: this.#bigTimestamp.get(row) ?? BigInt(this.#timestamp[row] as number),
      action: (flags & 1) as 0 | 1,
      tensorId: unitsToString(this.#idUnits, this.#idStart[row] as number, this.#idStart[row + 1] as number),
      device: this.#devices[this.#device[row] as number] as string,
      bytes: this.#bigBytes.get(row) ?? BigInt(this.#bytes[row] as number),
      category: CATEGORY_CODES[flags >> 1] as MemoryCategory,
      sequence: this.#sequence[row] as number,
    };
  }

  #compare(left: number, right: number): number {
    const leftTime = this.#timestamp[left] as number;
    const rightTime = this.#timestamp[right] as number;
    if (leftTime !== rightTime || Number.isNaN(leftTime)) {
      const a = this.#bigTimestamp.get(left) ?? BigInt(leftTime);
      const b = this.#bigTimestamp.get(right) ?? BigInt(rightTime);
      if (a !== b) return a < b ? -1 : 1;
    }
    const action = ((this.#flags[left] as number) & 1) - ((this.#flags[right] as number) & 1);
    if (action !== 0) return action;
    const units = this.#idUnits;
    let a = this.#idStart[left] as number;
    let b = this.#idStart[right] as number;
    const aEnd = this.#idStart[left + 1] as number;
    const bEnd = this.#idStart[right + 1] as number;
    for (; a < aEnd && b < bEnd; a++, b++) {
      const difference = unitKey(units[a] as number) - unitKey(units[b] as number);
      if (difference !== 0) return difference;
    }
    const length = aEnd - (this.#idStart[left] as number) - (bEnd - (this.#idStart[right] as number));
    if (length !== 0) return length;
    return (this.#sequence[left] as number) - (this.#sequence[right] as number);
  }
}

/** The string of `units[from, to)`, built in slices (no argument list longer than 4,096). */
function unitsToString(units: Uint16Array, from: number, to: number): string {
  let text = "";
  for (let at = from; at < to; at += 4096) {
    text += String.fromCharCode.apply(
      null,
      units.subarray(at, Math.min(to, at + 4096)) as unknown as number[],
    );
  }
  return text;
}

function setExact(column: Float64Array, big: Map<number, bigint>, row: number, value: bigint): void {
  const exact = normalizeU64(value);
  if (typeof exact === "number") {
    column[row] = exact;
  } else {
    column[row] = Number.NaN;
    big.set(row, value);
  }
}

/**
 * Sorts memory events in the order of the memory analysis (spec §11) with bounded memory: up to
 * `chunkSize` records are held, as columns; beyond that, sorted runs are spilled to a temporary
 * directory and merged.
 */
export class MemoryEventSorter {
  readonly #chunkSize: number;
  #chunk: RecordColumns;
  #directory: string | undefined;
  #releaseCleanup: (() => void) | undefined;
  readonly #runs: string[] = [];
  #readers: RunReader[] = [];

  // 50,000 records (a few MB of columns) per run.
  constructor(chunkSize = 50_000) {
    this.#chunkSize = chunkSize;
    this.#chunk = new RecordColumns(Math.min(chunkSize, 4096));
  }

  /** Number of runs written to disk so far (0 when everything fitted in memory). */
  get spilledRuns(): number {
    return this.#runs.length;
  }

  add(record: MemoryRecord): void {
    if (this.#chunk.size === this.#chunk.capacity) this.#grow();
    this.#chunk.add(record);
    if (this.#chunk.size >= this.#chunkSize) this.#spill();
  }

  /** A bigger chunk for the records so far (a trace with few memory events keeps a small one). */
  #grow(): void {
    const old = this.#chunk;
    const grown = new RecordColumns(Math.min(this.#chunkSize, old.capacity * 4));
    for (let row = 0; row < old.size; row++) grown.add(old.record(row));
    this.#chunk = grown;
  }

  #spill(): void {
    const chunk = this.#chunk;
    if (this.#directory === undefined) {
      const directory = mkdtempSync(join(tmpdir(), "cg-trace-sort-"));
      this.#directory = directory;
      this.#releaseCleanup = cleanupOnInterrupt(() => rmSync(directory, { recursive: true, force: true }));
    }
    const path = join(this.#directory, `run-${this.#runs.length}.jsonl`);
    const descriptor = openSync(path, "w");
    try {
      let text = "";
      for (const row of chunk.sortedRows()) {
        text += toLine(chunk.record(row));
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
    chunk.clear(); // the full-size columns take the next run
  }

  /** Yields all records in sorted order, then removes any temporary files. */
  *sorted(): Generator<MemoryRecord> {
    try {
      if (this.#runs.length === 0) {
        const chunk = this.#chunk;
        for (const row of chunk.sortedRows()) yield chunk.record(row);
        return;
      }
      if (this.#chunk.size > 0) this.#spill();
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
    this.#chunk = new RecordColumns(0);
    for (const reader of this.#readers) reader.close();
    this.#readers = [];
    if (this.#directory !== undefined) rmSync(this.#directory, { recursive: true, force: true });
    this.#directory = undefined;
    this.#releaseCleanup?.();
    this.#releaseCleanup = undefined;
  }
}
