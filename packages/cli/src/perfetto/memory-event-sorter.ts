import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

// A spilled run is its records in sorted order, each in 33 bytes plus its tensor id: timestamp,
// bytes and sequence as little-endian float64 (timestamp or bytes as uint64 where they pass
// 2^53 − 1, flagged), the flags byte, the device's index in the sorter's device table (uint32), the
// id's length in UTF-16 units (uint32), then those units. Binary, not JSON lines: parsing lines
// back and rebuilding their bigints was a third of a conversion's CPU time.
const AT_BYTES = 8;
const AT_SEQUENCE = 16;
const AT_FLAGS = 24;
const AT_DEVICE = 25;
const AT_ID_LENGTH = 29;
const RECORD_HEAD = 33;
const FLAG_FREE = 1;
const CATEGORY_SHIFT = 1;
const CATEGORY_MASK = 7;
const FLAG_BIG_TIMESTAMP = 1 << 4;
const FLAG_BIG_BYTES = 1 << 5;
const RUN_BUFFER_BYTES = 1 << 16;

/** The devices of one sorter's records, indexed once: runs store a device as its index. */
class DeviceTable {
  readonly names: string[] = [];
  readonly #index = new Map<string, number>();

  indexOf(device: string): number {
    let index = this.#index.get(device);
    if (index === undefined) {
      index = this.names.length;
      this.names.push(device);
      this.#index.set(device, index);
    }
    return index;
  }
}

/** Reads a spilled run back one record at a time with a buffer of at least 64 KiB. */
class RunReader {
  readonly #descriptor: number;
  readonly #devices: readonly string[];
  #buffer = Buffer.alloc(RUN_BUFFER_BYTES);
  #start = 0;
  #end = 0;
  #endOfFile = false;
  #closed = false;

  constructor(path: string, devices: readonly string[]) {
    this.#descriptor = openSync(path, "r");
    this.#devices = devices;
  }

  next(): MemoryRecord | undefined {
    if (!this.#holds(RECORD_HEAD)) return undefined;
    const head = this.#start;
    const idBytes = this.#buffer.readUInt32LE(head + AT_ID_LENGTH) * 2;
    // The head is held, so this either holds the whole record or throws on a run cut short.
    this.#holds(RECORD_HEAD + idBytes);
    const buffer = this.#buffer;
    const at = this.#start;
    const flags = buffer[at + AT_FLAGS] as number;
    this.#start = at + RECORD_HEAD + idBytes;
    return {
      timestamp:
        (flags & FLAG_BIG_TIMESTAMP) !== 0 ? buffer.readBigUInt64LE(at) : BigInt(buffer.readDoubleLE(at)),
      action: (flags & FLAG_FREE) as 0 | 1,
      tensorId: buffer.toString("utf16le", at + RECORD_HEAD, at + RECORD_HEAD + idBytes),
      device: this.#devices[buffer.readUInt32LE(at + AT_DEVICE)] as string,
      bytes:
        (flags & FLAG_BIG_BYTES) !== 0
          ? buffer.readBigUInt64LE(at + AT_BYTES)
          : BigInt(buffer.readDoubleLE(at + AT_BYTES)),
      category: CATEGORY_CODES[(flags >> CATEGORY_SHIFT) & CATEGORY_MASK] as MemoryCategory,
      sequence: buffer.readDoubleLE(at + AT_SEQUENCE),
    };
  }

  /** Whether `count` bytes from the current record are in the buffer, reading more as needed (false: the run is over). */
  #holds(count: number): boolean {
    while (this.#end - this.#start < count) {
      if (this.#endOfFile) {
        if (this.#start === this.#end) return false;
        throw new Error("a spilled memory run ends inside a record");
      }
      // Keep the partial record, at the front of a buffer that fits it.
      const kept = this.#buffer.subarray(this.#start, this.#end);
      const target = count > this.#buffer.length ? Buffer.alloc(count * 2) : this.#buffer;
      kept.copy(target, 0);
      this.#buffer = target;
      this.#end = kept.length;
      this.#start = 0;
      const read = readSync(this.#descriptor, target, this.#end, target.length - this.#end, null);
      if (read === 0) {
        this.#endOfFile = true;
        this.close();
      }
      this.#end += read;
    }
    return true;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
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
  readonly #devices: DeviceTable;
  /** Every row so far is in analysis order after the one before it: no sort needed. */
  #inOrder = true;

  constructor(capacity: number, devices: DeviceTable) {
    this.#devices = devices;
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
    this.#inOrder = true;
    this.#bigTimestamp.clear();
    this.#bigBytes.clear();
  }

  add(record: MemoryRecord): void {
    const row = this.size++;
    setExact(this.#timestamp, this.#bigTimestamp, row, record.timestamp);
    setExact(this.#bytes, this.#bigBytes, row, record.bytes);
    this.#sequence[row] = record.sequence;
    this.#flags[row] = record.action | (CATEGORY_CODES.indexOf(record.category) << CATEGORY_SHIFT);
    this.#device[row] = this.#devices.indexOf(record.device);
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
    // Writer output arrives in order: checked here, the sort is skipped.
    if (this.#inOrder && row > 0 && this.#compare(row - 1, row) > 0) this.#inOrder = false;
  }

  /** Rows in analysis order (see `compareMemoryRecords`). */
  sortedRows(): Uint32Array {
    const rows = new Uint32Array(this.size);
    for (let row = 0; row < rows.length; row++) rows[row] = row;
    return this.#inOrder ? rows : rows.sort((left, right) => this.#compare(left, right));
  }

  /** Bytes of `row` in a spilled run. */
  encodedLength(row: number): number {
    return RECORD_HEAD + ((this.#idStart[row + 1] as number) - (this.#idStart[row] as number)) * 2;
  }

  /** Writes `row` as a spilled run's record at `at` of `target` (see RECORD_HEAD); returns the end. */
  encode(row: number, target: Buffer, at: number): number {
    let flags = this.#flags[row] as number;
    const timestamp = this.#bigTimestamp.get(row);
    if (timestamp === undefined) target.writeDoubleLE(this.#timestamp[row] as number, at);
    else {
      target.writeBigUInt64LE(timestamp, at);
      flags |= FLAG_BIG_TIMESTAMP;
    }
    const bytes = this.#bigBytes.get(row);
    if (bytes === undefined) target.writeDoubleLE(this.#bytes[row] as number, at + AT_BYTES);
    else {
      target.writeBigUInt64LE(bytes, at + AT_BYTES);
      flags |= FLAG_BIG_BYTES;
    }
    target.writeDoubleLE(this.#sequence[row] as number, at + AT_SEQUENCE);
    target[at + AT_FLAGS] = flags;
    target.writeUInt32LE(this.#device[row] as number, at + AT_DEVICE);
    const from = this.#idStart[row] as number;
    const to = this.#idStart[row + 1] as number;
    target.writeUInt32LE(to - from, at + AT_ID_LENGTH);
    const units = this.#idUnits;
    target.set(new Uint8Array(units.buffer, units.byteOffset + from * 2, (to - from) * 2), at + RECORD_HEAD);
    return at + RECORD_HEAD + (to - from) * 2;
  }

  record(row: number): MemoryRecord {
    const flags = this.#flags[row] as number;
    return {
      timestamp: this.#bigTimestamp.get(row) ?? BigInt(this.#timestamp[row] as number),
      action: (flags & FLAG_FREE) as 0 | 1,
      tensorId: unitsToString(this.#idUnits, this.#idStart[row] as number, this.#idStart[row + 1] as number),
      device: this.#devices.names[this.#device[row] as number] as string,
      bytes: this.#bigBytes.get(row) ?? BigInt(this.#bytes[row] as number),
      category: CATEGORY_CODES[flags >> CATEGORY_SHIFT] as MemoryCategory,
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
    const action = ((this.#flags[left] as number) & FLAG_FREE) - ((this.#flags[right] as number) & FLAG_FREE);
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
  readonly #devices = new DeviceTable();
  #chunk: RecordColumns;
  #directory: string | undefined;
  #releaseCleanup: (() => void) | undefined;
  readonly #runs: string[] = [];
  #readers: RunReader[] = [];
  /** The last record of the last run spilled. */
  #lastSpilled: MemoryRecord | undefined;
  /** Each run starts at or after the end of the one before: the merge is a concatenation. */
  #runsChain = true;

  // 50,000 records (a few MB of columns) per run.
  constructor(chunkSize = 50_000) {
    this.#chunkSize = chunkSize;
    this.#chunk = new RecordColumns(Math.min(chunkSize, 4096), this.#devices);
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
    const grown = new RecordColumns(Math.min(this.#chunkSize, old.capacity * 4), this.#devices);
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
    const rows = chunk.sortedRows();
    if (rows.length === 0) return;
    const first = chunk.record(rows[0] as number);
    if (this.#lastSpilled !== undefined && compareMemoryRecords(this.#lastSpilled, first) > 0) {
      this.#runsChain = false;
    }
    this.#lastSpilled = chunk.record(rows[rows.length - 1] as number);
    const path = join(this.#directory, `run-${this.#runs.length}.bin`);
    const descriptor = openSync(path, "w");
    try {
      let buffer = Buffer.allocUnsafe(RUN_BUFFER_BYTES);
      let used = 0;
      for (const row of rows) {
        const length = chunk.encodedLength(row);
        if (used + length > buffer.length) {
          writeAll(descriptor, buffer.subarray(0, used));
          used = 0;
          // A record longer than the buffer (a very long tensor id) gets one of its own.
          if (length > buffer.length) buffer = Buffer.allocUnsafe(length);
        }
        used = chunk.encode(row, buffer, used);
      }
      writeAll(descriptor, buffer.subarray(0, used));
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
      const readers = this.#runs.map((path) => new RunReader(path, this.#devices.names));
      this.#readers = readers;
      if (this.#runsChain) {
        for (const reader of readers) {
          for (let record = reader.next(); record !== undefined; record = reader.next()) yield record;
        }
        return;
      }
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
    this.#chunk = new RecordColumns(0, this.#devices);
    for (const reader of this.#readers) reader.close();
    this.#readers = [];
    if (this.#directory !== undefined) rmSync(this.#directory, { recursive: true, force: true });
    this.#directory = undefined;
    this.#releaseCleanup?.();
    this.#releaseCleanup = undefined;
  }
}
