// A bounded single-producer / single-consumer ring of device readings in a SharedArrayBuffer.
// The worker produces; the owner drains. When full, the producer drops the oldest reading by
// advancing the read sequence with a compare-and-swap, so a reader that raced it retries and a
// dropped reading is never delivered twice or half-written.

/** Header slots (BigUint64). */
const header = {
  writeSequence: 0,
  readSequence: 1,
  drops: 2,
  rounds: 3,
  minIntervalNs: 4,
  maxIntervalNs: 5,
  errors: 6,
  lastErrorCode: 7,
  workerCpuNs: 8,
  workerWallNs: 9,
} as const;
const headerSlots = 16;

/** Record slots (BigUint64). */
const field = {
  timestampNs: 0,
  deviceIndex: 1,
  flags: 2,
  totalBytes: 3,
  freeBytes: 4,
  usedBytes: 5,
  reservedBytes: 6,
  processUsedBytes: 7,
} as const;
const recordSlots = 8;
const reservedKnown = 1n;
const processKnown = 2n;
const u64Max = 0xffff_ffff_ffff_ffffn;

/** One reading as it crosses the ring (exact bigints, unknowns as undefined). */
export interface RingReading {
  timestampNs: bigint;
  deviceIndex: number;
  totalBytes: bigint;
  freeBytes: bigint;
  usedBytes: bigint;
  reservedBytes: bigint | undefined;
  processUsedBytes: bigint | undefined;
}

export interface RingCounters {
  readonly written: bigint;
  readonly drops: bigint;
  readonly rounds: bigint;
  /** undefined until two rounds have run. */
  readonly minIntervalNs: bigint | undefined;
  readonly maxIntervalNs: bigint | undefined;
  readonly errors: bigint;
  readonly lastErrorCode: number;
  readonly workerCpuNs: bigint;
  readonly workerWallNs: bigint;
}

export class SampleRing {
  readonly capacity: number;
  readonly #slots: BigUint64Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.#slots = new BigUint64Array(buffer);
    this.capacity = (this.#slots.length - headerSlots) / recordSlots;
    if (!Number.isInteger(this.capacity) || this.capacity < 1)
      throw new RangeError("not a sample ring buffer");
  }

  static create(capacity: number): SampleRing {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(`ring capacity must be a positive integer, got ${capacity}`);
    }
    const ring = new SampleRing(new SharedArrayBuffer((headerSlots + capacity * recordSlots) * 8));
    Atomics.store(ring.#slots, header.minIntervalNs, u64Max);
    return ring;
  }

  /** Producer: appends a reading, dropping the oldest when full. */
  push(
    timestampNs: bigint,
    deviceIndex: number,
    totalBytes: bigint,
    freeBytes: bigint,
    usedBytes: bigint,
    reservedBytes: bigint | undefined,
    processUsedBytes: bigint | undefined,
  ): void {
    const slots = this.#slots;
    const write = Atomics.load(slots, header.writeSequence);
    const capacity = BigInt(this.capacity);
    for (;;) {
      const read = Atomics.load(slots, header.readSequence);
      if (write - read < capacity) break;
      if (Atomics.compareExchange(slots, header.readSequence, read, read + 1n) === read) {
        Atomics.add(slots, header.drops, 1n);
        break;
      }
    }
    const base = headerSlots + Number(write % capacity) * recordSlots;
    const flags =
      (reservedBytes === undefined ? 0n : reservedKnown) |
      (processUsedBytes === undefined ? 0n : processKnown);
    Atomics.store(slots, base + field.timestampNs, timestampNs);
    Atomics.store(slots, base + field.deviceIndex, BigInt(deviceIndex));
    Atomics.store(slots, base + field.flags, flags);
    Atomics.store(slots, base + field.totalBytes, totalBytes);
    Atomics.store(slots, base + field.freeBytes, freeBytes);
    Atomics.store(slots, base + field.usedBytes, usedBytes);
    Atomics.store(slots, base + field.reservedBytes, reservedBytes ?? 0n);
    Atomics.store(slots, base + field.processUsedBytes, processUsedBytes ?? 0n);
    Atomics.store(slots, header.writeSequence, write + 1n);
  }

  /** Consumer: hands every buffered reading, oldest first, to `deliver`; returns how many. */
  drain(deliver: (reading: RingReading) => void): number {
    const slots = this.#slots;
    const capacity = BigInt(this.capacity);
    let delivered = 0;
    for (;;) {
      const read = Atomics.load(slots, header.readSequence);
      if (read >= Atomics.load(slots, header.writeSequence)) return delivered;
      const base = headerSlots + Number(read % capacity) * recordSlots;
      const flags = Atomics.load(slots, base + field.flags);
      const reading: RingReading = {
        timestampNs: Atomics.load(slots, base + field.timestampNs),
        deviceIndex: Number(Atomics.load(slots, base + field.deviceIndex)),
        totalBytes: Atomics.load(slots, base + field.totalBytes),
        freeBytes: Atomics.load(slots, base + field.freeBytes),
        usedBytes: Atomics.load(slots, base + field.usedBytes),
        reservedBytes: flags & reservedKnown ? Atomics.load(slots, base + field.reservedBytes) : undefined,
        processUsedBytes:
          flags & processKnown ? Atomics.load(slots, base + field.processUsedBytes) : undefined,
      };
      // The producer dropped this slot while we read it: what we read may be torn, so retry.
      if (Atomics.compareExchange(slots, header.readSequence, read, read + 1n) !== read) continue;
      delivered++;
      deliver(reading);
    }
  }

  /** Producer: one sampling round ran, `intervalNs` after the previous one (undefined for the first). */
  recordRound(intervalNs: bigint | undefined): void {
    const slots = this.#slots;
    Atomics.add(slots, header.rounds, 1n);
    if (intervalNs === undefined) return;
    if (intervalNs < Atomics.load(slots, header.minIntervalNs))
      Atomics.store(slots, header.minIntervalNs, intervalNs);
    if (intervalNs > Atomics.load(slots, header.maxIntervalNs))
      Atomics.store(slots, header.maxIntervalNs, intervalNs);
  }

  recordError(code: number): void {
    Atomics.add(this.#slots, header.errors, 1n);
    Atomics.store(this.#slots, header.lastErrorCode, BigInt(code));
  }

  recordWorkerTimes(cpuNs: bigint, wallNs: bigint): void {
    Atomics.store(this.#slots, header.workerCpuNs, cpuNs);
    Atomics.store(this.#slots, header.workerWallNs, wallNs);
  }

  counters(): RingCounters {
    const slots = this.#slots;
    const rounds = Atomics.load(slots, header.rounds);
    const minimum = Atomics.load(slots, header.minIntervalNs);
    return {
      written: Atomics.load(slots, header.writeSequence),
      drops: Atomics.load(slots, header.drops),
      rounds,
      minIntervalNs: minimum === u64Max ? undefined : minimum,
      maxIntervalNs: rounds >= 2n ? Atomics.load(slots, header.maxIntervalNs) : undefined,
      errors: Atomics.load(slots, header.errors),
      lastErrorCode: Number(Atomics.load(slots, header.lastErrorCode)),
      workerCpuNs: Atomics.load(slots, header.workerCpuNs),
      workerWallNs: Atomics.load(slots, header.workerWallNs),
    };
  }
}
